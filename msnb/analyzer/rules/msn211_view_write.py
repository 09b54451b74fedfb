"""MSN211: writing through a view and expecting the base to change."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._inplace import inplace_method_name
from .base import Invalid, Rule, Valid

__all__ = ["ViewWrite"]


class ViewWrite(Rule):
    """Advice (info, shown with ``%msnb analyze --all``): msnb runs this
    construct as PyTorch does in both modes (checked by running the examples,
    ``tests/analyzer/test_examples_execute.py``).

    What it does: finds in-place writes (``v.add_()``, ``v[...] = ...``,
    ``v += ...``) to a name bound to a view of another tensor
    (``v = x.view(...)``, ``x[0]``, ``x.t()``, ``x.transpose(...)``...).

    Why: in PyTorch the write changes ``x`` too, because ``v`` shares its
    memory.  Graph mode has no shared storage: the write stays in ``v`` and
    ``x`` keeps its old values (warning).  msnb's PyNative tensors are real
    views, so the code behaves as in PyTorch there (not reported).

    Fix safety: no automatic fix; writing the base explicitly
    (``x[0] = x[0] + 1``) needs the view's index expression.
    """

    CODE = "MSN211"
    NAME = "view-write"
    CATEGORY = Category.VIEW
    MESSAGE = "write through a view relies on shared memory with its base"
    WHY = ("msnb runs this exactly as PyTorch does, in PyNative and in graph mode (msnb's graph mode records in-place and view writes into the compiled graph), so this is advice only, shown with `%msnb analyze --all`: MindSpore's own `@ms.jit` has no storage sharing between a view and its base.")
    SUGGESTION = "Update the base explicitly, e.g. `x[0] = x[0] + 1` instead of `v = x[0]; v.add_(1)`."
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.INFO
    VALID = [
        Valid("import torch\nx = torch.ones(2, 2)\nv = x.view(4)\ny = v + 1\n", mode="graph"),
        Valid("import torch\nx = torch.ones(2, 2)\nv = x.view(4)\nv.add_(1)\n", mode="pynative"),
    ]
    INVALID = [
        Invalid("import torch\nx = torch.ones(2, 2)\nv = x.view(4)\nv.add_(1)\n", line=4, col=1, mode="graph", severity=Severity.INFO),
        Invalid("import torch\nx = torch.ones(2, 2)\nrow = x[0]\nrow[1] = 5\n", line=4, col=1, mode="graph", severity=Severity.INFO),
        Invalid("import torch\nx = torch.ones(2, 2)\nt = x.t()\nt += 1\n", line=4, col=1, mode="graph", severity=Severity.INFO),
    ]

    def _view_base(self, target: ast.AST, ctx) -> str | None:
        if not isinstance(target, ast.Name):
            return None
        b = ctx.infer.lookup(target.id)
        if b is None or b.view_of is None:
            return None
        base = ctx.infer.lookup(b.view_of)
        return b.view_of if base is not None and base.kind.value == "tensor" else None

    def _report(self, node: ast.AST, view: str, base: str, ctx) -> None:
        ctx.report(node, message=f"write to `{view}`, a view of `{base}`, relies on shared memory")

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if inplace_method_name(node, ctx) is None:
            return
        recv = node.func.value  # type: ignore[attr-defined]
        base = self._view_base(recv, ctx)
        if base is not None:
            self._report(node, recv.id, base, ctx)

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        for t in node.targets:
            if isinstance(t, ast.Subscript):
                base = self._view_base(t.value, ctx)
                if base is not None:
                    self._report(node, t.value.id, base, ctx)  # type: ignore[attr-defined]

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        t = node.target.value if isinstance(node.target, ast.Subscript) else node.target
        base = self._view_base(t, ctx)
        if base is not None:
            self._report(node, t.id, base, ctx)  # type: ignore[attr-defined]
