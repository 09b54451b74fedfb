"""MSN503: Python constructs Graph mode cannot compile."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from .base import Invalid, Rule, Valid

__all__ = ["GraphUnsupportedSyntax"]


class GraphUnsupportedSyntax(Rule):
    """What it does: finds, inside code compiled in Graph mode, constructs
    MindSpore's graph compiler does not capture: ``try`` / ``except``,
    ``yield``, ``global`` / ``nonlocal``, ``del``, ``import``, ``async`` /
    ``await``, and assignments to ``self.<attr>`` (module state changed from
    ``forward``).

    Why: each of these either fails to compile or forces the function back
    to the Python interpreter (JIT Fallback), so the model silently runs
    slower or fails when the graph is built.  PyNative: not reported.

    Fix safety: no automatic fix; move the construct outside ``forward``
    (state updates into ``__init__`` or the training loop).
    """

    CODE = "MSN503"
    NAME = "graph-unsupported-syntax"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "construct not supported in Graph mode"
    WHY = "MindSpore's graph compiler cannot capture this construct; it fails or falls back to Python."
    SUGGESTION = "Move it out of `forward` / the compiled function."
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.count = 0\n    def forward(self, x):\n        y = x * 2\n        return y\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        try:\n"
                "            return x\n        except Exception:\n            return x\n", line=4, col=9, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        self.calls = 1\n"
                "        return x\n", line=4, col=9, mode="graph"),
    ]

    _LABELS = {ast.Try: "`try` statement", ast.Yield: "`yield`", ast.YieldFrom: "`yield from`",
               ast.Global: "`global` statement", ast.Nonlocal: "`nonlocal` statement", ast.Delete: "`del` statement",
               ast.Import: "`import` statement", ast.ImportFrom: "`import` statement", ast.Await: "`await`"}

    def _flag(self, node: ast.AST, ctx) -> None:
        if ctx.in_graph_code():
            ctx.report(node, message=f"{self._LABELS[type(node)]} inside compiled code")

    visit_Try = visit_Yield = visit_YieldFrom = visit_Global = visit_Nonlocal = _flag
    visit_Delete = visit_Import = visit_ImportFrom = visit_Await = _flag

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        if not ctx.in_graph_code():
            return
        for t in node.targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                ctx.report(node, message=f"assignment to `self.{t.attr}` inside compiled code")

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        t = node.target
        if ctx.in_graph_code() and isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            ctx.report(node, message=f"assignment to `self.{t.attr}` inside compiled code")
