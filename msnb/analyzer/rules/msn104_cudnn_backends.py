"""MSN104: ``torch.backends.cudnn`` / ``torch.backends.cuda`` settings."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._device import topmost_attribute
from .base import Invalid, Rule, Valid

__all__ = ["CudnnBackends"]


class CudnnBackends(Rule):
    """What it does: finds ``torch.backends.cudnn.*`` and
    ``torch.backends.cuda.*`` (``cudnn.benchmark = True``,
    ``cudnn.deterministic = True``, ``cuda.matmul.allow_tf32``...).

    Why: these flags tune NVIDIA libraries.  MindSpore does not use cuDNN on
    Ascend, so the settings have no effect there, and reading them fails
    unless the adapter provides the module (then: info).

    Fix safety: safe for assignments: a statement that only sets a cuDNN /
    CUDA backend flag is removed (it changes nothing on Ascend).  Reads are
    not rewritten.  Determinism on MindSpore is set with
    ``mindspore.set_deterministic(True)``.
    """

    CODE = "MSN104"
    NAME = "cudnn-backends"
    CATEGORY = Category.CUDA
    MESSAGE = "cuDNN / CUDA backend flag has no effect on Ascend"
    WHY = "torch.backends.cudnn and torch.backends.cuda configure NVIDIA libraries that MindSpore does not use."
    SUGGESTION = "Remove the setting; for reproducibility on MindSpore use `mindspore.set_deterministic(True)`."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe for assignments (removed); reads are left alone."
    VALID = [
        Valid("import torch\ntorch.use_deterministic_algorithms(True)\n"),
        Valid("import torch\nx = torch.backends\n"),
    ]
    INVALID = [
        Invalid("import torch\ntorch.backends.cudnn.benchmark = True\nx = 1\n", line=2, col=1,
                fix="import torch\nx = 1\n", severity=Severity.INFO),
        Invalid("from torch.backends import cudnn\nif True:\n    cudnn.deterministic = True\n", line=3, col=5,
                fix="from torch.backends import cudnn\nif True:\n    pass\n", severity=Severity.INFO),
        Invalid("import torch\nflag = torch.backends.cudnn.enabled\n", line=2, col=8, severity=Severity.INFO),
    ]

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if not topmost_attribute(node, ctx):
            return
        q = ctx.infer.qualname(node)
        if q is None or not q.startswith(("torch.backends.cudnn.", "torch.backends.cuda.")):
            return
        if q in ctx.registry:
            ctx.report(node, severity=Severity.INFO, message=f"`{q}` is accepted by msnb but has no effect")
            return
        p = ctx.parent
        edit = None
        if isinstance(p, ast.Assign) and len(p.targets) == 1 and p.targets[0] is node:
            edit = ctx.removal_edit(p, cst.Assign)
        ctx.report(p if edit is not None else node, message=f"`{q}` has no effect on Ascend", edit=edit)
