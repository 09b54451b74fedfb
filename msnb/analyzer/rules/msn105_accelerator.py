"""MSN105: ``torch.accelerator``."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._device import topmost_attribute
from .base import Invalid, Rule, Valid

__all__ = ["Accelerator"]


class Accelerator(Rule):
    """What it does: finds ``torch.accelerator.*`` (PyTorch 2.6+ device API).

    Why: ``torch.accelerator.current_accelerator()`` and friends report the
    CUDA / MPS / XPU backend PyTorch was built with; msnb runs on MindSpore's
    device and does not provide this module unless the support registry
    lists the name.

    Fix safety: no automatic fix; the replacement depends on what the value
    is used for.
    """

    CODE = "MSN105"
    NAME = "torch-accelerator"
    CATEGORY = Category.CUDA
    MESSAGE = "`torch.accelerator` is not available on msnb"
    WHY = "torch.accelerator queries PyTorch's own device backends, which do not exist under MindSpore."
    SUGGESTION = 'Use a `device` variable: `torch.device("cuda" if torch.cuda.is_available() else "cpu")`.'
    SEVERITY_PYNATIVE = Severity.WARNING
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [Valid("import torch\nd = torch.device('cpu')\n")]
    INVALID = [
        Invalid("import torch\ndev = torch.accelerator.current_accelerator()\n", line=2, col=7),
        Invalid("import torch as t\nif t.accelerator.is_available():\n    pass\n", line=2, col=4),
    ]

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if not topmost_attribute(node, ctx):
            return
        q = ctx.infer.qualname(node)
        if q is None or not q.startswith("torch.accelerator.") or q in ctx.registry:
            return
        ctx.report(node, message=f"`{q}` is not available on msnb")
