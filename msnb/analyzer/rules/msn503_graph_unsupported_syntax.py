"""MSN503: Python side effects in a recorded forward; syntax ``@ms.jit`` cannot compile."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ..inference import Kind
from ._graph import JIT, JIT_WHY, RECORDED_ONLY, is_self_attribute
from .base import Invalid, Rule, Valid

__all__ = ["GraphUnsupportedSyntax"]

#: Methods that change a list / dict / set / deque in place.  ``add`` and
#: ``sort`` are tensor methods too (returning a new tensor), so they count
#: only when their result is thrown away.
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
                       "discard", "appendleft", "extendleft", "popleft", "reverse"})
_MUTATORS_IF_DISCARDED = frozenset({"add", "sort"})

#: Values whose assignment to ``self.<attr>`` inside forward is lazy
#: registration (done on the first, eager call), not per-call state.
_REGISTRATIONS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})


class GraphUnsupportedSyntax(Rule):
    """What it does: in ``forward`` of an ``nn.Module`` or autograd Function,
    finds Python side effects: assignments to ``self.<attr>`` (``self.calls
    += 1``, ``self.last = out``, ``setattr(self, ...)``), ``global`` /
    ``nonlocal`` writes, and changes to lists / dicts / sets that outlive
    the call (``history.append(x)`` or ``table[k] = v`` on a global,
    ``self.hist.append(x)``).  In a ``@mindspore.jit`` function, finds the constructs
    MindSpore's AST compiler does not capture: ``try`` / ``except``,
    ``yield``, ``global`` / ``nonlocal``, ``del``, ``import``, ``await`` and
    ``self.<attr>`` assignments.

    Why: msnb's graph mode (``--mode graph``) runs ``forward``'s Python only
    while it records the graph (the first calls for each guard key: input
    shapes, ``train()``/``eval()``, ...) and replays the compiled kernels
    afterwards.  Any Python in ``forward`` works -- ``try``, ``del``,
    ``import``, ``yield`` are harmless and not reported -- but its side
    effects silently stop after the recorded calls: a call counter stays at
    2, a list of activations stops growing, an attribute keeps the recorded
    call's tensor.  Results of the model are unaffected, hence a warning.
    In-place tensor writes (``self.buf.add_(1)``, ``self.buf.copy_(v)``,
    BatchNorm's running statistics) are graph outputs written back at every
    replay and are not reported; an augmented assignment ``self.buf += 1``
    is reported because the analyzer cannot see whether ``self.buf`` is a
    registered buffer or a Python number -- ``self.buf.add_(1)`` says which.
    Lazy registration (``self.w = nn.Parameter(...)`` on the first call) and
    item assignment into ``self.<attr>[...]`` (usually a buffer) are not
    reported.  Under ``@ms.jit`` MindSpore's compiler parses the source, so
    the syntax itself fails or falls back to Python.  PyNative runs every
    call: not reported.

    Fix safety: no automatic fix; keep state in tensors updated in place
    (``register_buffer`` + ``.add_()``), move bookkeeping to the training
    loop, or run the cell in PyNative while it matters.
    """

    CODE = "MSN503"
    NAME = "graph-unsupported-syntax"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "Python side effect inside forward runs only while msnb records the graph"
    WHY = ("msnb's graph mode runs `forward`'s Python only on the calls it records (the first ones for each input "
           "shape, train/eval state, ...) and replays the compiled graph afterwards: this side effect silently "
           "stops happening after those calls.")
    SUGGESTION = ("Keep state in a registered buffer updated in place (`self.buf.add_(1)`), or do the bookkeeping "
                  "in the training loop.")
    JIT_SUGGESTION = "Move it out of the `@ms.jit` function."
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.count = 0\n    def forward(self, x):\n        y = x * 2\n        return y\n", mode="graph"),
        # the Python in forward only runs while it is recorded: no syntax limits, local state is fine
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        import math\n"
              "        outs = []\n        try:\n            outs.append(x * math.pi)\n        except RuntimeError:\n"
              "            raise\n        del x\n        return outs[0]\n", mode="graph"),
        Valid("import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        self.buf.add_(1)\n        self.ema[0] = x.mean()\n        return x\n", mode="graph"),
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        self.calls = 1\n"
              "        return x\n", mode="pynative"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        self.calls += 1\n"
                "        return x * 2\n"
                "\nimport torch\nnet = Net()\nnet.calls = 0\nfor i in range(3):\n    out = net(torch.ones(2, 3) * (i + 1))\nprint(net.calls)\n", line=4, col=9, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        out = x * 2\n"
                "        self.last = out\n        return out\n"
                "\nimport torch\nnet = Net()\nfor i in range(3):\n    out = net(torch.ones(2, 3) * (i + 1))\nprint(net.last.sum().item())\n", line=5, col=9, mode="graph"),
        Invalid("import torch.nn as nn\nactivations = []\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        activations.append(x)\n        return x * 2\n"
                "\nimport torch\nnet = Net()\nfor i in range(3):\n    out = net(torch.ones(2, 3) * (i + 1))\nprint(len(activations))\n", line=5, col=9, mode="graph"),
        Invalid("import torch.nn as nn\nsteps = 0\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        global steps\n        steps += 1\n        return x * 2\n"
                "\nimport torch\nnet = Net()\nfor i in range(3):\n    out = net(torch.ones(2, 3) * (i + 1))\nprint(steps)\n", line=5, col=9, mode="graph"),
        Invalid("import mindspore as ms\nimport torch\n@ms.jit\ndef f(x: torch.Tensor):\n    try:\n"
                "        return x\n    except Exception:\n        return -x\ny = f(torch.ones(2))\n", line=5, col=5, mode="graph",
                severity=Severity.ERROR),
    ]

    _LABELS = {ast.Try: "`try` statement", ast.Yield: "`yield`", ast.YieldFrom: "`yield from`",
               ast.Global: "`global` statement", ast.Nonlocal: "`nonlocal` statement", ast.Delete: "`del` statement",
               ast.Import: "`import` statement", ast.ImportFrom: "`import` statement", ast.Await: "`await`"}

    def _jit(self, node: ast.AST, ctx, what: str) -> None:
        ctx.report(node, severity=Severity.ERROR, message=f"{what} inside a `@ms.jit` function", why=JIT_WHY,
                   suggestion=self.JIT_SUGGESTION)

    def _side_effect(self, node: ast.AST, ctx, what: str) -> None:
        ctx.report(node, message=f"{what} inside forward: {RECORDED_ONLY}")

    # -- syntax: only MindSpore's AST compiler cares ------------------------
    def _flag(self, node: ast.AST, ctx) -> None:
        if ctx.graph_code_kind() == JIT:
            self._jit(node, ctx, self._LABELS[type(node)])

    visit_Try = visit_Yield = visit_YieldFrom = visit_Delete = visit_Import = visit_ImportFrom = _flag
    visit_Await = _flag

    def visit_TryStar(self, node: ast.AST, ctx) -> None:
        if ctx.graph_code_kind() == JIT:
            self._jit(node, ctx, "`try` statement")

    def _declaration(self, node: ast.Global | ast.Nonlocal, ctx) -> None:
        kind = ctx.graph_code_kind()
        if kind == JIT:
            self._jit(node, ctx, self._LABELS[type(node)])
        elif kind is not None:
            names = node.names
            if isinstance(node, ast.Nonlocal):
                # a helper nested in forward writing forward's own local is no side effect
                names = [n for n in names if ctx.is_outer_name(n)]
            if names:
                word = "global" if isinstance(node, ast.Global) else "nonlocal"
                self._side_effect(node, ctx, f"writing `{word} {', '.join(names)}`")

    visit_Global = visit_Nonlocal = _declaration

    # -- side effects ---------------------------------------------------------
    def _targets(self, node: ast.AST, targets: list[ast.AST], value: ast.AST | None, ctx) -> None:
        kind = ctx.graph_code_kind()
        if kind is None:
            return
        for t in targets:
            for leaf in _leaves(t):
                if is_self_attribute(leaf):
                    if kind == JIT:
                        self._jit(node, ctx, f"assignment to `self.{leaf.attr}`")
                    elif not self._registration(value, ctx):
                        self._side_effect(node, ctx, f"assignment to `self.{leaf.attr}`")
                    return
                if kind != JIT and isinstance(leaf, ast.Subscript) and self._outer_container(leaf.value, ctx):
                    self._side_effect(node, ctx, f"item assignment into `{ctx.segment(leaf.value)}`")
                    return

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        self._targets(node, node.targets, node.value, ctx)

    def visit_AnnAssign(self, node: ast.AnnAssign, ctx) -> None:
        if node.value is not None:
            self._targets(node, [node.target], node.value, ctx)

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        self._targets(node, [node.target], None, ctx)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        kind = ctx.graph_code_kind()
        if kind is None or kind == JIT:
            return
        func = node.func
        if (isinstance(func, ast.Name) and func.id == "setattr" and ctx.infer.lookup("setattr") is None
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "self"):
            self._side_effect(node, ctx, "`setattr(self, ...)`")
            return
        if not isinstance(func, ast.Attribute):
            return
        if func.attr in _MUTATORS_IF_DISCARDED:
            if not isinstance(ctx.parent, ast.Expr):
                return
        elif func.attr not in _MUTATORS:
            return
        recv = func.value
        if is_self_attribute(recv) or self._outer_container(recv, ctx):
            if ctx.infer.kind(recv) in (None, Kind.OTHER):
                self._side_effect(node, ctx, f"`{ctx.segment(recv)}.{func.attr}(...)`")

    @staticmethod
    def _outer_container(expr: ast.AST, ctx) -> bool:
        """A name from outside the forward (global, closure, earlier cell)
        that is not a tensor or an imported module."""
        if not isinstance(expr, ast.Name) or not ctx.is_outer_name(expr.id):
            return False
        if ctx.infer.qualname(expr) is not None:
            return False
        return ctx.infer.kind(expr) in (None, Kind.OTHER)

    @staticmethod
    def _registration(value: ast.AST | None, ctx) -> bool:
        if not isinstance(value, ast.Call):
            return False
        q = ctx.infer.qualname(value.func)
        return q in _REGISTRATIONS or ctx.infer.kind(value) is Kind.MODULE


def _leaves(target: ast.AST):
    if isinstance(target, (ast.Tuple, ast.List)):
        for t in target.elts:
            yield from _leaves(t)
    elif isinstance(target, ast.Starred):
        yield from _leaves(target.value)
    else:
        yield target
