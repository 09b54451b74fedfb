"""Apply rule rewrites as libcst node replacements.

Rules find problems on Python's ``ast`` (fast) and describe a rewrite as an
:class:`Edit`: the libcst node type to replace, the node's source range, and
a function from the (already updated) libcst node to its replacement.  This
module parses the cell once with libcst, locates each target by its range
(``PositionProvider``) and runs one transformer, so nested edits compose
(an inner call is rewritten before the statement around it).  A rewrite that
does not parse is discarded: no fix is better than a broken one.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Callable, Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .masking import unmask

__all__ = ["Edit", "apply_edits"]

Key = tuple[int, int, int, int]


@dataclass(frozen=True)
class Edit:
    """Replace the libcst node of type ``node_type`` spanning ``key``
    (1-based line, 0-based character column, end line, end column)."""

    node_type: type
    key: Key
    transform: Callable[[cst.CSTNode], cst.CSTNode | cst.RemovalSentinel]


@functools.lru_cache(maxsize=16)
def _parse(masked: str):
    module = cst.parse_module(masked)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return module, wrapper.resolve(PositionProvider)


class _Applier(cst.CSTTransformer):
    def __init__(self, table: dict[type, dict[Key, Edit]], positions) -> None:
        super().__init__()
        self.table = table
        self.positions = positions
        self.applied = 0

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        edits = self.table.get(type(original_node))
        if not edits:
            return updated_node
        r = self.positions.get(original_node)
        if r is None:
            return updated_node
        edit = edits.get((r.start.line, r.start.column, r.end.line, r.end.column))
        if edit is None:
            return updated_node
        self.applied += 1
        return edit.transform(updated_node)


def apply_edits(masked: str, originals: dict[int, str], edits: Iterable[Edit]) -> str | None:
    """Rewrite ``masked`` with ``edits``; None when nothing applied or the
    result would not parse.  The first edit wins when two target one node."""
    table: dict[type, dict[Key, Edit]] = {}
    for e in edits:
        table.setdefault(e.node_type, {}).setdefault(e.key, e)
    if not table:
        return None
    try:
        module, positions = _parse(masked)
    except cst.ParserSyntaxError:
        return None
    applier = _Applier(table, positions)
    new_module = module.visit(applier)
    if not applier.applied:
        return None
    code = new_module.code
    try:
        ast.parse(code)
    except SyntaxError:
        return None
    return unmask(code, originals)
