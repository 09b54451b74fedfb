"""MSN511: custom ``torch.autograd.Function`` in Graph mode."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from .base import Invalid, Rule, Valid

__all__ = ["AutogradFunction"]


class AutogradFunction(Rule):
    """What it does: finds classes deriving from
    ``torch.autograd.Function``.

    Why: Graph mode differentiates the compiled graph itself; a
    ``Function`` with a Python ``forward(ctx, ...)`` / ``backward(ctx, ...)``
    pair and ``ctx.save_for_backward`` cannot be compiled (error).  MindSpore's
    equivalent is a Cell with a ``bprop`` method (MSAdapter guide 4.2.1).
    PyNative runs the Python methods: not reported (MSN401 reports it if
    the adapter lacks ``torch.autograd.Function``).

    Fix safety: no automatic fix; the backward must be rewritten as
    ``bprop(self, *inputs, out, grad_output)``.
    """

    CODE = "MSN511"
    NAME = "graph-autograd-function"
    CATEGORY = Category.AUTOGRAD_FUNCTION
    MESSAGE = "custom autograd.Function cannot be compiled in Graph mode"
    WHY = "Graph mode cannot compile a Python autograd.Function with a ctx object; it needs a Cell with `bprop`."
    SUGGESTION = ("Rewrite as an `nn.Module` whose `forward(self, x, ...)` computes the output and "
                  "`bprop(self, x, ..., out, grad_output)` returns the input gradients, or run in PyNative mode.")
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.ERROR
    VALID = [
        Valid("import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
              "        return x\n", mode="pynative"),
        Valid("import torch.nn as nn\nclass M(nn.Module):\n    def forward(self, x):\n        return x\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch\nclass Gdn(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                "        ctx.save_for_backward(x)\n        return x\n", line=2, col=1, severity=Severity.ERROR,
                mode="graph"),
        Invalid("from torch.autograd import Function\nclass Clip(Function):\n    pass\n", line=2, col=1,
                severity=Severity.ERROR, mode="graph"),
    ]

    def visit_ClassDef(self, node: ast.ClassDef, ctx) -> None:
        if any(ctx.infer.is_function_base(b) for b in node.bases):
            ctx.report(node, message=f"custom autograd.Function `{node.name}` cannot be compiled in Graph mode")
