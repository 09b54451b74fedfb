"""MSN203: ``out=`` arguments."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from .base import Invalid, Rule, Valid

__all__ = ["OutArgument"]

#: Producers of buffers whose only purpose is to receive a result.
_BUFFER_FACTORIES = frozenset({"torch.empty", "torch.empty_like", "torch.zeros", "torch.zeros_like",
                               "torch.ones_like", "torch.ones"})


class OutArgument(Rule):
    """Advice (info, shown with ``%msnb analyze --all``): msnb runs this
    construct as PyTorch does in both modes (checked by running the examples,
    ``tests/analyzer/test_examples_execute.py``).

    What it does: finds torch calls writing into a preallocated tensor
    with ``out=`` (``torch.add(a, b, out=c)``).

    Why: ``out=`` is an in-place write; Graph mode cannot compile it (error).
    msnb accepts it in PyNative (info).  The MSAdapter guide (4.2.3)
    recommends ``output = torch.xxx(*)``.

    Fix safety: ``torch.add(a, b, out=c)`` as a statement becomes
    ``c = torch.add(a, b)`` only when ``c`` is a fresh, unaliased local made by
    ``torch.empty/zeros/ones(_like)`` in this cell, i.e. a buffer that exists
    only to receive the result.
    """

    CODE = "MSN203"
    NAME = "out-argument"
    CATEGORY = Category.INPLACE
    MESSAGE = "`out=` writes into an existing tensor in place"
    WHY = ("msnb runs this exactly as PyTorch does, in PyNative and in graph mode (msnb's graph mode records in-place and view writes into the compiled graph), so this is advice only, shown with `%msnb analyze --all`: returning the result is the form MindSpore's own `@ms.jit` accepts.")
    SUGGESTION = "Bind the result instead: `c = torch.add(a, b)`."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe when `out` is a fresh buffer from torch.empty/zeros/ones(_like) never used elsewhere."
    VALID = [Valid("import torch\na = torch.ones(2)\nc = torch.add(a, a)\n", mode="graph"),
             Valid("def f(out=None):\n    return out\nf(out=1)\n", mode="graph")]
    INVALID = [
        Invalid("import torch\na = torch.ones(2)\nc = torch.empty(2)\ntorch.add(a, a, out=c)\n", line=4, col=1,
                severity=Severity.INFO, mode="graph",
                fix="import torch\na = torch.ones(2)\nc = torch.empty(2)\nc = torch.add(a, a)\n"),
        Invalid("import torch\ndef f(a, c):\n    torch.mul(a, 2, out=c)\n", line=3, col=5, severity=Severity.INFO),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        out = next((k for k in node.keywords if k.arg == "out"), None)
        if out is None:
            return
        q = ctx.infer.qualname(node.func)
        if q is None or not q.startswith("torch."):
            return
        edit = when = None
        stmt = ctx.parent
        if isinstance(stmt, ast.Expr) and stmt.value is node and isinstance(out.value, ast.Name):
            name = out.value.id
            b = ctx.infer.scope.names.get(name)
            if b is not None and b.origin in _BUFFER_FACTORIES:
                when = ctx.rebind_safe(name)
                if when is not None:
                    edit = ctx.edit(stmt, cst.Expr, lambda n, name=name: _rebind(n, name))
        ctx.report(node, message=f"`{q}(..., out=...)` writes in place", edit=edit, when=when)


def _rebind(stmt: cst.Expr, name: str) -> cst.Assign:
    call = stmt.value
    assert isinstance(call, cst.Call)
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "out")]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=call.with_changes(args=args),
                      semicolon=stmt.semicolon)
