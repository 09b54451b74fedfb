"""MSN611: ``torch.load`` without ``weights_only``."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._cst import add_keyword
from .base import Invalid, Rule, Valid

__all__ = ["TorchLoadWeightsOnly"]

#: An earlier cell that writes the checkpoint the examples load.
_SAVED = "import torch\ntorch.save({'w': torch.ones(2)}, 'm.pt')\n"


class TorchLoadWeightsOnly(Rule):
    """What it does: finds ``torch.load(...)`` calls that do not pass
    ``weights_only``, or pass ``weights_only=False``.

    Why: without ``weights_only=True`` a checkpoint may be a pickle of
    arbitrary objects (running code on load).  msnb can only load tensors
    and containers of tensors (state dicts); a pickled ``nn.Module`` or
    custom object cannot be rebuilt on MindSpore (MSAdapter guide 4.4:
    loading model structures is not supported).

    Fix safety: safe.  ``weights_only=True`` is added; it has been PyTorch's
    default since 2.6, so the call behaves as it already does in current
    PyTorch.  ``weights_only=False`` is reported without a fix.
    """

    CODE = "MSN611"
    NAME = "torch-load-weights-only"
    CATEGORY = Category.CHECKPOINT
    MESSAGE = "`torch.load` without `weights_only=True`"
    WHY = "msnb can load state dicts of tensors, not arbitrary pickled objects."
    SUGGESTION = "Save `model.state_dict()` and load it with `torch.load(path, weights_only=True)`."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe: `weights_only=True` is PyTorch's default since 2.6."
    VALID = [Valid("import torch\nsd = torch.load('m.pt', weights_only=True)\n", context=(_SAVED,))]
    INVALID = [
        Invalid("import torch\nsd = torch.load('m.pt', map_location='cpu')\n", line=2, col=6,
                fix="import torch\nsd = torch.load('m.pt', map_location='cpu', weights_only=True)\n", severity=Severity.INFO, context=(_SAVED,)),
        Invalid("import torch\nsd = torch.load('m.pt', weights_only=False)\n", line=2, col=6, fix=None, severity=Severity.INFO, context=(_SAVED,)),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if ctx.infer.qualname(node.func) != "torch.load":
            return
        kw = next((k for k in node.keywords if k.arg == "weights_only"), None)
        if kw is not None:
            if isinstance(kw.value, ast.Constant) and kw.value.value is False:
                ctx.report(node, message="`torch.load(..., weights_only=False)` unpickles arbitrary objects")
            return
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            ctx.report(node)
            return
        ctx.report(node, edit=ctx.edit(node, cst.Call, lambda n: add_keyword(n, "weights_only", "True")))
