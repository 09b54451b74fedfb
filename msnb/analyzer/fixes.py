"""Apply rule rewrites as libcst node replacements, one statement at a time.

Rules find problems on Python's ``ast`` (fast) and describe a rewrite as an
:class:`Edit`: the libcst node type to replace, the node's source range, and
a function from the (already updated) libcst node to its replacement.

libcst costs about 1 ms per line here (parse, ``PositionProvider``,
transform, code generation) and its position metadata is the slowest part,
so a rewrite never runs libcst over the whole cell: each *top-level
statement* that holds an edit is parsed on its own (with its lines'
positions shifted), transformed, and spliced back into the untouched text
of the rest of the cell.  Fixing is therefore linear in the size of what it
rewrites, and the cell's own line endings (``\n``, ``\r\n``, ``\r``) are
kept.  Nested edits compose (an inner call is rewritten before the statement
around it).  A rewrite that does not parse is discarded: no fix is better
than a broken one.

A *cell edit* (``node_type`` is ``cst.Module``, ``transform`` the text of a
statement) inserts a line after the cell's leading imports, once however
many findings ask for it (the shared ``device = ...`` definition).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .masking import MARKER, unmask

__all__ = ["Edit", "apply_edits", "split_lines"]

Key = tuple[int, int, int, int]
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(source: str) -> list[str]:
    """Lines with their own endings, split where Python's tokenizer splits."""
    return _LINES.findall(source)


@dataclass(frozen=True)
class Edit:
    """Replace the libcst node of type ``node_type`` spanning ``key``
    (1-based line, 0-based character column, end line, end column)."""

    node_type: type
    key: Key
    transform: Callable[[cst.CSTNode], cst.CSTNode | cst.RemovalSentinel]
    #: edits that must be applied with this one (e.g. defining the ``device``
    #: a ``.to(device)`` rewrite uses); duplicates across findings apply once
    extra: tuple["Edit", ...] = ()


class _Applier(cst.CSTTransformer):
    def __init__(self, table: dict[type, dict[Key, Edit]], positions, shift: int) -> None:
        super().__init__()
        self.table = table
        self.positions = positions
        self.shift = shift
        self.applied = 0

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        edits = self.table.get(type(original_node))
        if not edits:
            return updated_node
        r = self.positions.get(original_node)
        if r is None:
            return updated_node
        edit = edits.get((r.start.line + self.shift, r.start.column, r.end.line + self.shift, r.end.column))
        if edit is None:
            return updated_node
        self.applied += 1
        return edit.transform(updated_node)


def _statement_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """(first line, last line) of each top-level statement, decorators included."""
    spans = []
    for stmt in tree.body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        spans.append((first, stmt.end_lineno or stmt.lineno))
    return spans


def _insertion_line(tree: ast.Module, lines: list[str]) -> int:
    """Index in ``lines`` after the cell's leading imports and masked IPython lines."""
    at = 0
    for stmt in tree.body:
        masked = isinstance(stmt, ast.Pass) and MARKER in lines[stmt.lineno - 1]
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) or masked:
            at = stmt.end_lineno or stmt.lineno
            continue
        break
    return at


def _rewrite_chunk(chunk: str, shift: int, table: dict[type, dict[Key, Edit]]) -> tuple[str, int] | None:
    try:
        module = cst.parse_module(chunk)
    except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
        return None
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    applier = _Applier(table, positions, shift)
    new = module.visit(applier)
    if not applier.applied:
        return None
    code = new.code
    return ("" if not code.strip() else code), applier.applied  # a removed statement leaves no blank line


def _overlaps(a: Key, b: Key) -> bool:
    return (a[0], a[1]) < (b[2], b[3]) and (b[0], b[1]) < (a[2], a[3])


def _splice_expressions(lines: list[str], first: int, edits: list[Edit]) -> str | None:
    """Fast path for a statement whose edits are all expressions that do not
    nest: each target's own text is parsed alone (no position metadata),
    transformed, and put back in place.  None when any step does not fit,
    so the caller uses the whole-statement path."""
    ordered = sorted(edits, key=lambda e: e.key)
    for a, b in zip(ordered, ordered[1:]):
        if _overlaps(a.key, b.key):
            return None
    stmt = lines[first - 1:]
    new_text: dict[Key, str] = {}
    for e in ordered:
        if not issubclass(e.node_type, cst.BaseExpression):
            return None
        l0, c0, l1, c1 = e.key
        if l0 != l1:
            return None
        line = stmt[l0 - first]
        try:
            node = cst.parse_expression(line[c0:c1])
        except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
            return None
        if type(node) is not e.node_type:
            return None
        new = e.transform(node)
        if not isinstance(new, cst.CSTNode):
            return None
        new_text[e.key] = _EMPTY.code_for_node(new)
    out_lines = {}
    for e in reversed(ordered):  # right to left, so earlier columns stay valid
        l0, c0, _, c1 = e.key
        line = out_lines.get(l0, stmt[l0 - first])
        out_lines[l0] = line[:c0] + new_text[e.key] + line[c1:]
    return out_lines  # type: ignore[return-value]


_EMPTY = cst.Module(body=[])


def apply_edits(masked: str, originals: dict[int, str], edits: Iterable[Edit]) -> str | None:
    """Rewrite ``masked`` with ``edits``; None when nothing applied or the
    result would not parse.  The first edit wins when two target one node."""
    table: dict[type, dict[Key, Edit]] = {}
    cell_lines: dict[str, None] = {}
    by_line: dict[int, list[Edit]] = {}
    for e in edits:
        for part in (e, *e.extra):
            if part.node_type is cst.Module:
                cell_lines.setdefault(part.transform, None)  # type: ignore[arg-type]
            elif part.key not in table.setdefault(part.node_type, {}):
                table[part.node_type][part.key] = part
                by_line.setdefault(part.key[0], []).append(part)
    if not table and not cell_lines:
        return None
    try:
        tree = ast.parse(masked)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = split_lines(masked)
    out: list[str] = []
    applied = 0
    done = 0  # lines[:done] are already in out
    edit_lines = sorted(by_line)
    pos = 0
    for first, last in _statement_spans(tree):
        while pos < len(edit_lines) and edit_lines[pos] < first:
            pos += 1
        mine: list[Edit] = []
        while pos < len(edit_lines) and edit_lines[pos] <= last:
            mine.extend(by_line[edit_lines[pos]])
            pos += 1
        if not mine:
            continue
        out.extend(lines[done:first - 1])
        fast = _splice_expressions(lines, first, mine)
        if fast is not None:
            out.extend(fast.get(n, lines[n - 1]) for n in range(first, last + 1))
            applied += len(mine)
        else:
            chunk = "".join(lines[first - 1:last])
            result = _rewrite_chunk(chunk, first - 1, table)
            if result is None:
                out.append(chunk)
            else:
                out.append(result[0])
                applied += result[1]
        done = last
    out.extend(lines[done:])
    code = "".join(out)
    if cell_lines:
        new_lines = split_lines(code)
        newline = next((ln[len(ln.rstrip("\r\n")):] for ln in new_lines if ln.endswith(("\n", "\r"))), "\n")
        try:
            at = _insertion_line(ast.parse(code), new_lines)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if at and not new_lines[at - 1].endswith(("\n", "\r")):
            new_lines[at - 1] += newline
        new_lines[at:at] = [text.rstrip("\n") + newline for text in cell_lines]
        code = "".join(new_lines)
        applied += len(cell_lines)
    if not applied:
        return None
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return unmask(code, originals)
