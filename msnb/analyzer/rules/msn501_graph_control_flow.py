"""MSN501: Python control flow on tensor values in compiled code."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._graph import FALLBACK, FALLBACK_WHY, JIT, JIT_WHY
from .base import Invalid, Rule, Valid

__all__ = ["GraphControlFlow"]


class GraphControlFlow(Rule):
    """What it does: finds ``if`` / ``while`` / conditional expressions /
    ``assert`` whose condition is a tensor value (``if x.sum() > 0:``,
    ``if mask:``) inside ``forward`` of an ``nn.Module`` or of an autograd
    Function, or inside a ``@mindspore.jit`` function.

    Why: msnb's graph mode (``--mode graph``) records a module call while it
    runs and replays the compiled graph afterwards.  A branch on a tensor's
    value reads it on the host, and a replay would silently take the
    recorded branch, so msnb detects the read and runs that module in
    PyNative (one ``msnb graph: ... runs in PyNative`` line, listed by
    ``%msnb explain``).  Results do not change and the layers it calls are
    still compiled one by one; the cost is speed, hence a warning, not an
    error.  In a ``@mindspore.jit`` function MindSpore's AST compiler builds
    the branch as graph control flow, with limits on what each branch may
    return, or falls back to Python.  Conditions on shapes
    (``x.shape[0] > 1``), ``None`` checks and Python flags
    (``self.training``, which is part of msnb's guard key) are static and not
    reported; neither are ``@torch.compile`` functions, which msnb runs as
    plain Python.  PyNative runs Python directly: not reported.

    Fix safety: no automatic fix; ``torch.where(cond, a, b)`` replaces
    value-dependent branches that select between tensors.
    """

    CODE = "MSN501"
    NAME = "graph-tensor-control-flow"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "Python control flow depends on a tensor value"
    WHY = "Branching on a tensor value reads it on the host: " + FALLBACK_WHY
    SUGGESTION = ("Select with `torch.where(cond, a, b)`, or branch on static values (shapes, `self.training`); "
                  "if the branch must stay, keep the module small so the rest of the model compiles.")
    JIT_SUGGESTION = "Select with `torch.where(cond, a, b)`, or branch on static values (shapes, flags)."
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        if x.shape[0] > 1 and self.training:\n            x = x * 2\n        return x\n", mode="graph"),
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        if x.sum() > 0:\n            x = -x\n        return x\n", mode="pynative"),
        Valid("import torch\nx = torch.ones(2)\nif x.sum() > 0:\n    print('outside forward')\n", mode="graph"),
        # msnb's torch.compile returns the function unchanged: plain Python
        Valid("import torch\n@torch.compile\ndef f(x: torch.Tensor):\n    if x.sum() > 0:\n        x = -x\n"
              "    return x\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        if x.sum() > 0:\n            x = -x\n        return x\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=4, col=12, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        while x.max() > 1:\n            x = x / 2\n        return x\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=4, col=15, mode="graph"),
        # `if tensor:` is bool(tensor), a host read too
        Invalid("import torch\nclass Clamp(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                "        return x if x.any() else x + 1\n"
                "class Net(torch.nn.Module):\n    def forward(self, x):\n        return Clamp.apply(x * 2)\n"
                "net = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=5, col=21, mode="graph",
                severity=Severity.INFO),
        Invalid("import mindspore as ms\nimport torch\n@ms.jit\ndef f(x: torch.Tensor):\n"
                "    if x.sum() > 0:\n        x = -x\n    return x\ny = f(torch.ones(2))\n", line=5, col=8, mode="graph",
                severity=Severity.INFO),
    ]

    def _check(self, test: ast.AST, ctx) -> None:
        kind = ctx.graph_code_kind()
        if kind is None:
            return
        tests = test.values if isinstance(test, ast.BoolOp) else [test]
        for t in tests:
            if not ctx.infer.is_tensor(t):
                continue
            if kind == JIT:
                # MindSpore compiles this (graph control flow): advice only
                ctx.report(t, severity=Severity.INFO,
                           message=f"control flow on tensor value `{ctx.segment(t)}` in a `@ms.jit` function",
                           why="Branching on tensor values needs graph control flow or a Python fallback. " + JIT_WHY,
                           suggestion=self.JIT_SUGGESTION)
            else:
                ctx.report(t, message=f"control flow on tensor value `{ctx.segment(t)}`: {FALLBACK}")

    def visit_If(self, node: ast.If, ctx) -> None:
        self._check(node.test, ctx)

    def visit_While(self, node: ast.While, ctx) -> None:
        self._check(node.test, ctx)

    def visit_IfExp(self, node: ast.IfExp, ctx) -> None:
        self._check(node.test, ctx)

    def visit_Assert(self, node: ast.Assert, ctx) -> None:
        self._check(node.test, ctx)
