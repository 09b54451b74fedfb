"""MSN621: module attributes MindSpore looks up by name on a Cell."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._cell_attributes import cell_attributes
from .base import Invalid, Rule, Valid

__all__ = ["CellNameConflict", "module_member_target"]


def module_member_target(node: ast.AST, ctx) -> str | None:
    """``name`` for ``self.name = ...`` in a method, or ``def name`` in the
    body, of an ``nn.Module`` subclass."""
    if not ctx.classes or ctx.classes[-1][1] != "module":
        return None
    cls = ctx.classes[-1][0]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name if ctx.parent is cls else None
    if not ctx.functions or not any(p is cls for p in ctx.parents):
        return None
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
    for t in targets:
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return t.attr
    return None


class CellNameConflict(Rule):
    """What it does: in an ``nn.Module`` subclass, finds attributes assigned
    as ``self.<name>`` and methods defined with a name that MindSpore looks
    up on every network *by name* (``data/cell_attributes.json``, key
    ``unsafe``: ``construct``, ``bprop``, ``_cells``, ``_params``...).

    Why: the adapter plans to store ordinary user attributes so that names
    like ``self.phase`` (MSAdapter guide 4.2.1) no longer collide with
    ``mindspore.nn.Cell``; those are left to the off-by-default MSN901.  The
    names here stay unsafe whatever the adapter does: MindSpore's compiler
    calls ``construct`` and its autodiff picks up a method named ``bprop`` as
    the custom backward, so defining them changes behaviour.  The list is
    data, generated from ``mindspore.nn.Cell`` plus a hand-curated subset.

    Fix safety: no automatic fix; renaming an attribute needs every use
    renamed.
    """

    CODE = "MSN621"
    NAME = "cell-name-conflict"
    CATEGORY = Category.NAME_CONFLICT
    MESSAGE = "name collides with a MindSpore Cell member that MindSpore uses"
    WHY = "MindSpore looks this name up on every Cell (`construct` is the forward, `bprop` a custom backward)."
    SUGGESTION = "Rename the attribute or method (e.g. add a prefix)."
    SEVERITY_PYNATIVE = Severity.ERROR
    SEVERITY_GRAPH = Severity.ERROR
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.fc = nn.Linear(2, 2)\n"),
        Valid("class Plain:\n    def construct(self):\n        pass\n"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def bprop(self, x, out, dout):\n        return dout\n",
                line=3, col=5, severity=Severity.INFO),  # msnb's autograd does not call it
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        self._cells = []\n        self.fc = nn.Linear(2, 2)\nnet = Net()\n", line=5, col=9, severity=Severity.ERROR),
    ]

    def _check(self, node: ast.AST, ctx) -> None:
        name = module_member_target(node, ctx)
        if name is not None and name in cell_attributes()[1]:
            sev = Severity.INFO if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else Severity.ERROR
            ctx.report(node, severity=sev, message=f"`{name}` collides with a MindSpore Cell member that MindSpore uses by name")

    visit_FunctionDef = visit_Assign = visit_AnnAssign = _check
