"""MSN204: augmented assignment on a tensor (``x += y``)."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._cst import _wrap
from .base import Invalid, Rule, Valid

__all__ = ["AugmentedAssignment"]


class AugmentedAssignment(Rule):
    """Advice (info, shown with ``%msnb analyze --all``): msnb runs this
    construct as PyTorch does in both modes (checked by running the examples,
    ``tests/analyzer/test_examples_execute.py``).

    What it does: finds ``x += y`` (and ``-=``, ``*=``...) where ``x`` is
    a tensor.

    Why: on a PyTorch tensor ``x += y`` updates ``x`` in place, so every other
    reference to that tensor (a view, a list holding it, the caller) sees
    the change.  In Graph mode MindSpore compiles it as ``x = x + y``: the
    other references keep the old value (warning).  In PyNative msnb keeps
    PyTorch's in-place semantics, so nothing is reported.

    Fix safety: ``x = x + y`` is offered only when ``x`` is a fresh,
    unaliased local of this cell (then nobody else can observe the
    difference; dtypes agree when the operands share one).
    """

    CODE = "MSN204"
    NAME = "tensor-augmented-assignment"
    CATEGORY = Category.INPLACE
    MESSAGE = "augmented assignment updates the tensor in place"
    WHY = ("msnb runs this exactly as PyTorch does, in PyNative and in graph mode (msnb's graph mode records in-place and view writes into the compiled graph), so this is advice only, shown with `%msnb analyze --all`: under MindSpore's own `@ms.jit`, `x += y` rebinds `x`.")
    SUGGESTION = "Write the rebinding explicitly: `x = x + y`."
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe when the tensor is a fresh, unaliased local (checked)."
    VALID = [
        Valid("total = 0\ntotal += 1\n", mode="graph"),
        Valid("import torch\nx = torch.ones(2)\nx += 1\n", mode="pynative"),
    ]
    INVALID = [
        Invalid("import torch\nx = torch.ones(2)\nx *= 2 + 1\n", line=3, col=1, severity=Severity.INFO,
                mode="graph", fix="import torch\nx = torch.ones(2)\nx = x * (2 + 1)\n"),
        Invalid("import torch\ndef f(x: torch.Tensor):\n    x += 1\n", line=3, col=5, severity=Severity.INFO,
                mode="graph", fix=None),
    ]

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        target = node.target
        if not isinstance(target, ast.Name) or not ctx.infer.is_tensor(target):
            return
        b = ctx.infer.lookup(target.id)
        if b is not None and b.view_of is not None:
            return  # MSN211
        when = ctx.rebind_safe(target.id)
        edit = ctx.edit(node, cst.AugAssign, _expand) if when is not None else None
        ctx.report(node, edit=edit, when=when)


def _expand(node: cst.AugAssign) -> cst.Assign:
    op_name = type(node.operator).__name__.replace("Assign", "")
    op = getattr(cst, op_name)()
    return cst.Assign(
        targets=[cst.AssignTarget(target=node.target)],
        value=cst.BinaryOperation(left=node.target, operator=op, right=_wrap(node.value)),
        semicolon=node.semicolon,
    )
