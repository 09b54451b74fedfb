"""``migrate_notebook`` / ``migrate_script``: make a notebook or script run on msnb.

A migrated notebook gets

* a first cell ``%load_ext msnb`` (unless the notebook already loads msnb;
  with ``style="session"`` the cell also runs the line magic
  ``%torch_on_ascend [--mode M]``, which sets the flags once for the session);
* ``%%torch_on_ascend`` on every cell that uses torch (see
  :mod:`msnb.migration.usage`).  msnb has no session-wide switch that runs
  unmarked cells on the adapter, so both styles mark the cells: ``cell``
  writes the flags on each magic line, ``session`` writes a bare
  ``%%torch_on_ascend`` and the flags once in the setup cell;
* the analyzer's safe fixes in those cells (``fix=False`` skips them);
* a markdown cell (second) saying what changed and what still needs a
  human, with rule codes.  Running ``migrate`` again replaces that cell.

Cells left alone keep their outputs and metadata; changed cells keep their
metadata and lose their now stale outputs.  The notebook's nbformat version
is kept.  The input is never overwritten unless ``in_place`` (then a backup
``x.ipynb.bak`` is written first), and every write is atomic.

Scripts get the same fixes and a ``# msnb migrate:`` comment block at the
top; they run with ``msnb exec`` and need no magic.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import nbformat

from msnb.analyzer.notebook import cell_mode

from .atomic import atomic_write, make_backup
from .rules import Selection, analyze_cell, fix_cell, selection_for
from .sources import InputError, load_source
from .usage import MAGIC, survey_cells

__all__ = ["MigrationResult", "CellChange", "migrate_notebook", "migrate_script", "migrate_path",
           "default_output", "STYLES", "SUMMARY_KEY"]

STYLES = ("cell", "session")
#: Cell metadata key marking the summary cell migrate writes.
SUMMARY_KEY = "msnb_migration"
_LOAD_EXT = re.compile(r"^\s*%load_ext\s+msnb\s*$", re.M)
_SCRIPT_MARK = "# msnb migrate:"


@dataclass
class CellChange:
    """One cell migrate changed; ``cell`` is its 1-based number in the result."""

    cell: int | None
    actions: list[str]
    before: str
    after: str


@dataclass
class MigrationResult:
    src: Path
    dst: Path
    written: bool
    changes: list[CellChange] = field(default_factory=list)
    needs_human: list[str] = field(default_factory=list)
    fixed: Counter = field(default_factory=Counter)
    backup: Path | None = None
    diff: str = ""

    def summary(self) -> str:
        """One line for the terminal."""
        verb = "wrote" if self.written else "would write"
        fixes = sum(self.fixed.values())
        return (f"msnb migrate: {verb} {self.dst}: {len(self.changes)} cell(s) changed, {fixes} safe fix(es), "
                f"{len(self.needs_human)} finding(s) need a human")


def default_output(src: str | Path) -> Path:
    """``x.ipynb`` -> ``x_msnb.ipynb`` (``x.py`` -> ``x_msnb.py``) beside it."""
    src = Path(src)
    return src.with_name(f"{src.stem}_msnb{src.suffix}")


def _destination(src: Path, dst, in_place: bool, force: bool, diff: bool) -> Path:
    if in_place:
        if dst is not None and Path(dst).resolve() != src.resolve():
            raise InputError(src, "give either an output file or --in-place, not both")
        return src
    dest = Path(dst) if dst is not None else default_output(src)
    if dest.resolve() == src.resolve():
        raise InputError(src, "the output would overwrite the input; use --in-place (a backup is kept)")
    if dest.suffix != src.suffix:
        raise InputError(dest, f"output must be a {src.suffix} file like the input")
    if not diff:
        if dest.is_dir():
            raise InputError(dest, "is a folder, not a file")
        if dest.exists() and not force:
            raise InputError(dest, "exists; use --force to replace it")
        if not dest.parent.is_dir():
            raise InputError(dest, "its folder does not exist")
    return dest


def _fixed_codes(before: list, after: list) -> Counter:
    return Counter(f.rule for f in before) - Counter(f.rule for f in after)


def _code_list(counter: Counter) -> str:
    return ", ".join(f"{code}" + (f" x{n}" if n > 1 else "") for code, n in sorted(counter.items()))


def _finding_line(where: str, f) -> str:
    fix = " (fixable: rerun without --no-fix)" if f.fixable else ""
    return f"{where}:{f.line}:{f.col} {f.rule} {f.severity}: {f.message}{fix}"


def _new_cell(nb, kind: str, source: str, **metadata):
    make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
    cell = make(source, metadata=metadata)
    if (nb.nbformat, nb.nbformat_minor) < (4, 5):
        cell.pop("id", None)
    return cell


def _diff(name: str, before: list[tuple[str, str]], after: list[tuple[str, str]]) -> str:
    """Unified diff of two cell lists rendered as ``# cell N [type]`` blocks."""
    def render(cells):
        out = []
        for i, (kind, src) in enumerate(cells, 1):
            out.append(f"# %% cell {i} [{kind}]\n")
            out.extend(line + "\n" for line in src.split("\n"))
        return out
    return "".join(difflib.unified_diff(render(before), render(after), fromfile=f"{name} (before)",
                                        tofile=f"{name} (migrated)"))


def _summary_markdown(changes: list[CellChange], needs: list[str], notes: list[str], fixed: Counter,
                      fix: bool) -> str:
    lines = ["## Migrated to msnb", "",
             "This notebook was prepared by `msnb migrate` to run its PyTorch code on MindSpore. "
             "Cell numbers below are this notebook's."]
    lines += ["", "**What changed**", ""]
    lines += [f"- cell {c.cell}: {'; '.join(c.actions)}" for c in changes] or [
        "- nothing in this run (the notebook was already migrated)"]
    if fix and fixed:
        lines += ["", f"Safe fixes applied: {_code_list(fixed)} (see `docs/rules.md`)."]
    lines += ["", "**Needs a human**", ""]
    lines += [f"- {n}" for n in (notes + needs)] or ["- nothing: every finding was fixed"]
    return "\n".join(lines)


def migrate_notebook(src: str | Path, dst: str | Path | None = None, *, style: str = "cell", fix: bool = True,
                     in_place: bool = False, diff: bool = False, select: Iterable[str] | None = None,
                     ignore: Iterable[str] | None = None, mode: str | None = None,
                     force: bool = False) -> MigrationResult:
    """Migrate one notebook (see the module docstring).  ``dst`` defaults to
    ``x_msnb.ipynb``; ``diff=True`` only computes ``result.diff``; ``mode``
    (``pynative`` / ``graph``) is written as the magic's ``--mode``.
    Raises :class:`InputError` for a bad input or destination (nothing is
    written then) and ``ConfigError`` for unknown rule codes."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, got {style!r}")
    src = Path(src)
    source = load_source(src)
    if source.kind != "notebook":
        raise InputError(src, "not a notebook; use migrate_script for .py files")
    dest = _destination(src, dst, in_place, force, diff)
    selection = selection_for(src, select, ignore)
    from msnb.adapter import support

    nb = copy.deepcopy(source.nb)
    surveys = {s.index: s for s in survey_cells(source.cells, support.load_registry())}
    flags = f" --mode {mode}" if mode else ""
    header = MAGIC_LINE = f"%%{MAGIC}" + (flags if style == "cell" else "")
    has_load = any(c.cell_type == "code" and _LOAD_EXT.search(c.source) for c in nb.cells)

    kept, changed, needs_at, notes_at = [], [], [], []
    old_summary_at = None
    fixed: Counter = Counter()
    context: list[str] = []
    for index, cell in enumerate(nb.cells):
        if cell.get("metadata", {}).get(SUMMARY_KEY):
            old_summary_at = len(kept) if old_summary_at is None else old_summary_at
            continue  # replaced below, in the same place
        kept.append(cell)
        survey = surveys.get(index)
        if cell.cell_type != "code" or survey is None or not survey.uses_torch:
            if cell.cell_type == "code":
                context.append(cell.source)
            continue
        if survey.magic not in (None, MAGIC):
            notes_at.append((cell, f"starts with `%%{survey.magic}`, so it cannot also be a `%%{MAGIC}` "
                                   "cell: move its torch code to a cell of its own"))
            context.append(cell.source)
            continue
        original = cell.source
        if survey.magic == MAGIC:
            first, _, body = original.partition("\n")
            head = first
        else:
            head, body = header, original
        cmode = mode or cell_mode(head + "\n")
        actions = [] if survey.magic == MAGIC else [f"added `{MAGIC_LINE}`"]
        new_body = body
        if fix:
            new_body = fix_cell(body, mode=cmode, context=context, selection=selection)
        new_source = head + "\n" + new_body
        before = analyze_cell(head + "\n" + body, mode=cmode, context=context, selection=selection)
        after = analyze_cell(new_source, mode=cmode, context=context, selection=selection)
        done = _fixed_codes(before, after) if new_body != body else Counter()
        if done:
            fixed += done
            actions.append(f"safe fixes {_code_list(done)}")
        if new_source != original:
            cell.source = new_source
            cell.outputs = []
            cell.execution_count = None
            changed.append((cell, actions, original))
        needs_at.extend((cell, f) for f in after)
        context.append(new_source)

    setup = None
    if style == "session" or not has_load:
        setup_src = "%load_ext msnb" + (f"\n%{MAGIC}{flags}" if style == "session" else "")
        setup = _new_cell(nb, "code", setup_src)
    summary = _new_cell(nb, "markdown", "", **{SUMMARY_KEY: True})
    at = old_summary_at if old_summary_at is not None and setup is None else 0
    cells = ([setup] if setup is not None else []) + kept[:at] + [summary] + kept[at:]
    number = {id(c): i + 1 for i, c in enumerate(cells)}

    changes = [CellChange(number[id(c)], actions, before, c.source) for c, actions, before in changed]
    if setup is not None:
        changes.insert(0, CellChange(1, ["inserted: loads msnb" + (" and sets the session's flags"
                                                                    if style == "session" else "")], "",
                                     setup.source))
    needs = [_finding_line(f"cell {number[id(c)]}", f) for c, f in needs_at]
    notes = [f"cell {number[id(c)]} {text}" for c, text in notes_at]
    summary.source = _summary_markdown(changes, needs, notes, fixed, fix)
    nb.cells = cells
    nbformat.validate(nb)

    result = MigrationResult(src, dest, False, changes, notes + needs, fixed)
    result.diff = _diff(src.name, [(c.cell_type, c.source) for c in source.nb.cells],
                        [(c.cell_type, c.source) for c in cells])
    if diff:
        return result
    text = nbformat.writes(nb, version=nbformat.NO_CONVERT) + "\n"
    if in_place:
        result.backup = make_backup(src)
    atomic_write(dest, text)
    result.written = True
    return result


def _split_header(text: str) -> tuple[list[str], list[str]]:
    """(shebang / encoding lines, the rest) with an old migrate block removed."""
    lines = text.split("\n")
    keep = []
    while lines and (lines[0].startswith("#!") or re.match(r"#.*coding[:=]", lines[0])) and len(keep) < 2:
        keep.append(lines.pop(0))
    while lines and lines[0].startswith(_SCRIPT_MARK):
        lines.pop(0)
    return keep, lines


def migrate_script(src: str | Path, dst: str | Path | None = None, *, fix: bool = True, in_place: bool = False,
                   diff: bool = False, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
                   mode: str | None = None, force: bool = False) -> MigrationResult:
    """Migrate one ``.py`` script: safe fixes plus a ``# msnb migrate:``
    comment block (how to run it, what needs a human).  Same rules for
    ``dst``, ``in_place``, ``diff`` and errors as :func:`migrate_notebook`."""
    src = Path(src)
    source = load_source(src)
    if source.kind != "script":
        raise InputError(src, "not a Python script; use migrate_notebook for notebooks")
    dest = _destination(src, dst, in_place, force, diff)
    selection = selection_for(src, select, ignore)
    cmode = mode or "pynative"
    keep, rest = _split_header(source.text)
    body = "\n".join(rest)
    new_body = fix_cell(body, mode=cmode, context=(), selection=selection) if fix else body
    before = analyze_cell(body, mode=cmode, context=(), selection=selection)
    fixed = _fixed_codes(before, analyze_cell(new_body, mode=cmode, context=(), selection=selection))

    def assemble(block: list[str]) -> str:
        return "\n".join(keep + block + new_body.split("\n"))

    run = f"{_SCRIPT_MARK} run with `msnb exec {dest.name}`" + (f" --mode {mode}" if mode else "")
    block = [run] + ([f"{_SCRIPT_MARK} safe fixes applied: {_code_list(fixed)}"] if fixed else [])
    # the findings' lines depend on the block's length: settle it in two passes
    needs: list[str] = []
    for _ in range(2):
        text = assemble(block + [f"{_SCRIPT_MARK} needs a human: {n}" for n in needs])
        after = analyze_cell(text, mode=cmode, context=(), selection=selection)
        needs = [_finding_line(f"line", f).replace("line:", "line ", 1) for f in after]
    text = assemble(block + [f"{_SCRIPT_MARK} needs a human: {n}" for n in needs])
    change = CellChange(None, [f"safe fixes {_code_list(fixed)}"] if fixed else [], source.text, text)
    result = MigrationResult(src, dest, False, [change] if text != source.text else [], needs, fixed)
    result.diff = "".join(difflib.unified_diff(source.text.splitlines(True), text.splitlines(True),
                                               fromfile=f"{src.name} (before)", tofile=f"{src.name} (migrated)"))
    if diff:
        return result
    if in_place:
        result.backup = make_backup(src)
    atomic_write(dest, text)
    result.written = True
    return result


def migrate_path(src: str | Path, dst: str | Path | None = None, **options) -> MigrationResult:
    """:func:`migrate_notebook` or :func:`migrate_script` by file type
    (``style`` is ignored for scripts)."""
    if Path(src).suffix == ".py":
        options.pop("style", None)
        return migrate_script(src, dst, **options)
    return migrate_notebook(src, dst, **options)
