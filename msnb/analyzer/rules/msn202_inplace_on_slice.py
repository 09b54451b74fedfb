"""MSN202: in-place method on a slice (``boxes[i, :, 0::4].clamp_(...)``)."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._inplace import has_out_of_place, inplace_method_name, is_pure, rebind_statement
from .base import Invalid, Rule, Valid

__all__ = ["InplaceOnSlice"]


class InplaceOnSlice(Rule):
    """Advice (info, shown with ``%msnb analyze --all``): msnb runs this
    construct as PyTorch does in both modes (checked by running the examples,
    ``tests/analyzer/test_examples_execute.py``).

    What it does: finds in-place methods called on an indexed tensor,
    e.g. ``boxes[i, :, 0::4].clamp_(0, w - 1)``.

    Why: the update only reaches ``boxes`` if the slice is a view sharing its
    memory.  Graph mode has neither views nor in-place updates, so the write
    is lost or fails to compile (error); earlier adapters lost it in PyNative
    too (MSAdapter guide 4.2.3).  msnb's PyNative tensors are real views, so
    it works there (info).

    Fix safety: safe.  The statement becomes ``boxes[idx] =
    boxes[idx].clamp(...)``, which writes the result back explicitly.  Offered
    only when the indexed expression and the index are side-effect free, since
    they are evaluated twice.
    """

    CODE = "MSN202"
    NAME = "inplace-on-slice"
    CATEGORY = Category.INPLACE
    MESSAGE = "in-place method on a slice relies on the slice being a view"
    WHY = ("msnb runs this exactly as PyTorch does, in PyNative and in graph mode (msnb's graph mode records in-place and view writes into the compiled graph), so this is advice only, shown with `%msnb analyze --all`: writing the result back explicitly also works under MindSpore's own `@ms.jit`.")
    SUGGESTION = "Assign the result back: `boxes[i, :, 0::4] = boxes[i, :, 0::4].clamp(0, w - 1)`."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe when the indexed expression and index are side-effect free (checked)."
    VALID = [
        Valid("import torch\nboxes = torch.rand(2, 3, 8)\nboxes[0, :, 0::4] = boxes[0, :, 0::4].clamp(0, 1)\n",
              mode="graph"),
        Valid("rows = [[1], [2]]\nrows[0].append(3)\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch\nboxes = torch.rand(2, 3, 8)\nim_shape = torch.ones(2, 2)\n"
                "for i in range(2):\n    boxes[i, :, 0::4].clamp_(0, im_shape[i, 1] - 1)\n",
                line=5, col=5, severity=Severity.INFO, mode="graph",
                fix="import torch\nboxes = torch.rand(2, 3, 8)\nim_shape = torch.ones(2, 2)\n"
                    "for i in range(2):\n    boxes[i, :, 0::4] = boxes[i, :, 0::4].clamp(0, im_shape[i, 1] - 1)\n"),
        Invalid("import torch\nx = torch.rand(4)\nx[:2].zero_()\n", line=3, col=1, severity=Severity.INFO, fix=None),
        Invalid("import torch\nx = torch.rand(4)\nf = lambda: 1\nx[f()].add_(1)\n", line=4, col=1, severity=Severity.INFO,
                mode="graph", fix=None),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        name = inplace_method_name(node, ctx)
        if name is None:
            return
        recv = node.func.value  # type: ignore[attr-defined]
        if not isinstance(recv, ast.Subscript) or not ctx.infer.is_tensor(recv.value):
            return
        edit = None
        stmt = ctx.parent
        if (isinstance(stmt, ast.Expr) and stmt.value is node and has_out_of_place(name, ctx)
                and is_pure(recv.value) and is_pure(recv.slice)):
            edit = ctx.edit(stmt, cst.Expr, rebind_statement)
        ctx.report(node, message=f"in-place `.{name}()` on a slice of `{ctx.segment(recv.value)}`", edit=edit)
