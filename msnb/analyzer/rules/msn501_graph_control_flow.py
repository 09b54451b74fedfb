"""MSN501: Python control flow on tensor values in compiled code."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from .base import Invalid, Rule, Valid

__all__ = ["GraphControlFlow"]


class GraphControlFlow(Rule):
    """What it does: finds ``if`` / ``while`` / conditional expressions /
    ``assert`` whose condition is a tensor value, inside code MindSpore
    compiles in Graph mode (``forward`` of an ``nn.Module``, autograd
    Function, ``@ms.jit`` / ``@torch.compile`` functions).

    Why: the graph is built once; a branch on a tensor's *value* is either
    compiled as graph control flow (with restrictions on what each branch may
    return) or forces a fallback to Python (slow, and an error for some
    constructs).  Conditions on shapes (``x.shape[0] > 1``), ``None`` checks
    and Python flags are static and not reported.  PyNative runs Python
    directly: not reported.

    Fix safety: no automatic fix; ``torch.where(cond, a, b)`` replaces
    value-dependent branches that select between tensors.
    """

    CODE = "MSN501"
    NAME = "graph-tensor-control-flow"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "Python control flow depends on a tensor value"
    WHY = "Graph mode compiles the function once; branching on tensor values forces graph control flow or a Python fallback."
    SUGGESTION = "Select with `torch.where(cond, a, b)`, or branch on static values (shapes, flags)."
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        if x.shape[0] > 1 and self.training:\n            x = x * 2\n        return x\n", mode="graph"),
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        if x.sum() > 0:\n            x = -x\n        return x\n", mode="pynative"),
        Valid("import torch\nx = torch.ones(2)\nif x.sum() > 0:\n    print('outside forward')\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        if x.sum() > 0:\n            x = -x\n        return x\n", line=4, col=12, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        while x.max() > 1:\n            x = x / 2\n        return x\n", line=4, col=15, mode="graph"),
    ]

    def _check(self, test: ast.AST, ctx) -> None:
        if not ctx.in_graph_code():
            return
        tests = test.values if isinstance(test, ast.BoolOp) else [test]
        for t in tests:
            if ctx.infer.is_tensor(t):
                ctx.report(t, message=f"control flow on tensor value `{ctx.segment(t)}` in compiled code")

    def visit_If(self, node: ast.If, ctx) -> None:
        self._check(node.test, ctx)

    def visit_While(self, node: ast.While, ctx) -> None:
        self._check(node.test, ctx)

    def visit_IfExp(self, node: ast.IfExp, ctx) -> None:
        self._check(node.test, ctx)

    def visit_Assert(self, node: ast.Assert, ctx) -> None:
        self._check(node.test, ctx)
