"""MSN901 (off by default): module attributes shadowing other Cell members."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._cell_attributes import cell_attributes
from .base import Invalid, Rule, Valid
from .msn621_cell_name_conflict import module_member_target

__all__ = ["CellAttributeShadowing"]


class CellAttributeShadowing(Rule):
    """What it does: in an ``nn.Module`` subclass, finds ``self.<name>``
    attributes and methods whose name is a ``mindspore.nn.Cell`` member
    (``phase``, ``cells``, ``compile``, ``recompute``, ``shard``...) but not
    a ``torch.nn.Module`` member and not in MSN621's unsafe list.

    Why: adapters that subclass ``Cell`` break when user code overwrites
    these (MSAdapter guide 4.2.1, ``self.phase``).  msnb's adapter is meant
    to keep user attributes apart from Cell internals, so this is noise for
    most users: the rule is in the off-by-default MSN9xx range and reports
    info.  Enable it with ``analyze(..., rules=["MSN901", ...])`` when
    debugging an attribute that behaves strangely.

    Fix safety: no automatic fix.
    """

    CODE = "MSN901"
    NAME = "cell-attribute-shadowing"
    CATEGORY = Category.NAME_CONFLICT
    MESSAGE = "attribute name is also a MindSpore Cell member"
    WHY = "If the adapter stores this attribute on the underlying Cell, it would replace MindSpore's own member."
    SUGGESTION = "Usually nothing to do on msnb; rename the attribute if it misbehaves."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    DEFAULT_ENABLED = False
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.training_steps = 0\n"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        self.phase = 'train'\n", line=5, col=9, severity=Severity.INFO),
    ]

    def _check(self, node: ast.AST, ctx) -> None:
        name = module_member_target(node, ctx)
        if name is None:
            return
        all_names, unsafe = cell_attributes()
        if name in all_names and name not in unsafe and f"torch.nn.Module.{name}" not in ctx.torch_api:
            ctx.report(node, message=f"`{name}` is also a MindSpore Cell member")

    visit_FunctionDef = visit_Assign = visit_AnnAssign = _check
