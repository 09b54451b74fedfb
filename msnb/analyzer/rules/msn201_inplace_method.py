"""MSN201: in-place tensor methods (``x.add_(y)``)."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._inplace import has_out_of_place, inplace_method_name, rebind_statement
from .base import Invalid, Rule, Valid

__all__ = ["InplaceMethod"]


class InplaceMethod(Rule):
    """Advice (info, shown with ``%msnb analyze --all``): msnb runs this
    construct as PyTorch does in both modes (checked by running the examples,
    ``tests/analyzer/test_examples_execute.py``).

    What it does: finds in-place tensor methods (``x.add_(y)``,
    ``x.clamp_(0, 1)``, ``x.zero_()``) on names known to be tensors.

    Why: MindSpore's Graph mode has no in-place updates ("Tensor.add_ is an
    in-place operation ... not encouraged in static graph mode", MSAdapter
    FAQ), so the cell fails to compile: error in Graph mode.  msnb supports
    in-place updates with real view semantics in PyNative: info there.

    Fix safety: ``x.add_(y)`` used as a statement becomes ``x = x.add(y)``
    (the seed's rewrite) only when that cannot change the program: ``x`` was
    created in this cell, in this scope, by a fresh tensor expression, has no
    views and never escaped (stored, passed to non-torch code, returned,
    aliased).  In-place ops keep ``x``'s dtype while out-of-place ops promote,
    so the two agree whenever the operands share a dtype, which is the case
    the rewrite is meant for.
    """

    CODE = "MSN201"
    NAME = "inplace-method"
    CATEGORY = Category.INPLACE
    MESSAGE = "in-place tensor method"
    WHY = ("msnb runs this exactly as PyTorch does, in PyNative and in graph mode (msnb's graph mode records in-place and view writes into the compiled graph), so this is advice only, shown with `%msnb analyze --all`: code meant for MindSpore's own `@ms.jit` compiler needs the out-of-place form.")
    SUGGESTION = "Write the out-of-place form and rebind: `x = x.add(y)` instead of `x.add_(y)`."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe when the tensor is a fresh, unaliased local (checked); otherwise no fix."
    VALID = [
        Valid("import torch\nx = torch.ones(3)\ny = x.add(1)\n", mode="graph"),
        Valid("import torch\nmodel = torch.nn.Linear(2, 2)\nmodel.requires_grad_(False)\n", mode="graph"),
        Valid("import torch\nfor p in model.parameters():\n    p.data.add_(1)\n", mode="graph",
              context=("import torch\nmodel = torch.nn.Linear(2, 2)\n",)),
    ]
    INVALID = [
        Invalid("import torch\nx = torch.ones(3)\nx.add_(1)\n", line=3, col=1, severity=Severity.INFO,
                mode="graph", fix="import torch\nx = torch.ones(3)\nx = x.add(1)\n"),
        Invalid("import torch\nx = torch.ones(3)\nx.clamp_(0, 1)\n", line=3, col=1, severity=Severity.INFO,
                fix="import torch\nx = torch.ones(3)\nx = x.clamp(0, 1)\n"),
        Invalid("import torch\nx = torch.ones(3)\nkeep = [x]\nx.mul_(2)\n", line=4, col=1, severity=Severity.INFO,
                mode="graph", fix=None),
        Invalid("import torch\nx = torch.ones(3)\ny = x.zero_()\n", line=3, col=5, severity=Severity.INFO,
                mode="graph", fix=None),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        name = inplace_method_name(node, ctx)
        if name is None:
            return
        recv = node.func.value  # type: ignore[attr-defined]
        if isinstance(recv, ast.Subscript) or not ctx.infer.is_tensor(recv):
            return  # slices are MSN202's
        if isinstance(recv, ast.Name):
            b = ctx.infer.lookup(recv.id)
            if b is not None and b.view_of is not None and ctx.mode == "graph":
                return  # a write through a view: MSN211 explains that case
        edit = when = None
        stmt = ctx.parent
        if (isinstance(stmt, ast.Expr) and stmt.value is node and isinstance(recv, ast.Name)
                and has_out_of_place(name, ctx)):
            when = ctx.rebind_safe(recv.id)
            if when is not None:
                edit = ctx.edit(stmt, cst.Expr, rebind_statement)
        ctx.report(node, message=f"in-place tensor method `.{name}()`",
                   suggestion=f"Use `{ctx.segment(recv)} = {ctx.segment(recv)}.{name[:-1]}(...)`"
                   if has_out_of_place(name, ctx) else self.SUGGESTION,
                   edit=edit, when=when)
