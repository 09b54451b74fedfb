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
    CUDA / MPS / XPU backend PyTorch was built with.  msnb implements the
    device-independent part on MindSpore's device (``is_available``,
    ``current_accelerator``...), which runs unchanged and is not reported;
    a name the support registry lacks raises when the cell runs: error.

    Fix safety: no automatic fix; the replacement depends on what the value
    is used for.
    """

    CODE = "MSN105"
    NAME = "torch-accelerator"
    CATEGORY = Category.CUDA
    MESSAGE = "`torch.accelerator` name not implemented by msnb"
    WHY = "torch.accelerator queries PyTorch's own device backends, which do not exist under MindSpore."
    SUGGESTION = 'Use a `device` variable: `torch.device("cuda" if torch.cuda.is_available() else "cpu")`.'
    SEVERITY_PYNATIVE = Severity.ERROR
    SEVERITY_GRAPH = Severity.ERROR
    VALID = [Valid("import torch\nd = torch.device('cpu')\n"),
             Valid("import torch as t\nif t.accelerator.is_available():\n    dev = t.accelerator.current_accelerator()\n")]
    INVALID = [
        Invalid("import torch\nstats = torch.accelerator.memory_stats()\n", line=2, col=9, severity=Severity.ERROR),
        Invalid("import torch as t\nt.accelerator.current_stream()\n", line=2, col=1, severity=Severity.ERROR),
    ]

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if not topmost_attribute(node, ctx):
            return
        q = ctx.infer.qualname(node)
        if q is None or not q.startswith("torch.accelerator.") or q in ctx.registry:
            return
        ctx.report(node, message=f"`{q}` is not implemented by msnb")
