"""Read the files the migration tools work on, and refuse bad ones clearly.

A *source* is a notebook (``.ipynb``) or a Python script (``.py``).  Every
way a file can be unusable ends in one :class:`InputError` whose message
is a single sentence naming the file: not found, unreadable, binary, not
JSON, not a valid notebook, nbformat 3, a non-Python kernel, an unknown
file type.  Notebooks are read with ``as_version=nbformat.NO_CONVERT`` so
a notebook written back keeps its own format version.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

__all__ = ["InputError", "Source", "Cell", "load_source", "iter_paths", "SUFFIXES"]

#: File types the tools accept.
SUFFIXES = (".ipynb", ".py")

#: Folders never searched when a folder is given.
_SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", "node_modules", "site-packages"}


class InputError(Exception):
    """A file the tools cannot use; ``str()`` is the one-line message."""

    def __init__(self, path: str | os.PathLike, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


@dataclass
class Cell:
    """One unit of code: a notebook cell (``index`` into ``nb.cells``) or a
    whole script (``index`` None)."""

    index: int | None
    source: str
    cell_type: str = "code"


@dataclass
class Source:
    """A loaded notebook or script."""

    path: Path
    kind: str  # "notebook" | "script"
    text: str  # the raw file text
    nb: nbformat.NotebookNode | None = None
    cells: list[Cell] = field(default_factory=list)

    _raw_map: dict | None = field(default=None, repr=False)

    def file_position(self, cell: Cell, line: int, col: int) -> tuple[int, int] | None:
        """(line, column), 1-based, of a cell position in the file itself: in
        a notebook, in its JSON text (what GitHub code scanning and editors
        point at); None when that text cannot be matched to the cell."""
        if cell.index is None:
            return line, col
        if self._raw_map is None:
            self._raw_map = _json_source_lines(self.text, self.cells)
        entries = self._raw_map.get(cell.index)
        if entries is None or not 0 < line <= len(entries):
            return None
        raw_line, start, text = entries[line - 1]
        prefix = json.dumps(text[: max(col - 1, 0)], ensure_ascii=False)[1:-1]
        return raw_line, start + len(prefix) + 1

    def location(self, cell: Cell, line: int, col: int) -> str:
        """``nb.ipynb:cell 3:2:5`` (cells counted from 1) or ``x.py:12:5``."""
        if cell.index is None:
            return f"{self.path}:{line}:{col}"
        return f"{self.path}:cell {cell.index + 1}:{line}:{col}"


_SOURCE_KEY = re.compile(r'^\s*"source": \[\s*$')


def _json_source_lines(text: str, cells: list[Cell]) -> dict[int, list[tuple[int, int, str]]]:
    """For each cell whose source is stored one JSON string per line (as
    nbformat writes it): per source line, (1-based line in ``text``, 0-based
    column where the string's content starts, the line's text).  Each match
    is verified against the cell's source, so an unusual layout only loses
    the mapping of that cell, never gives a wrong line."""
    raw = text.split("\n")
    out: dict[int, list[tuple[int, int, str]]] = {}
    pos = 0
    for cell in cells:
        k = next((i for i in range(pos, len(raw)) if _SOURCE_KEY.match(raw[i])), None)
        if k is None:
            break
        parts = cell.source.splitlines(keepends=True)
        entries = []
        for j, part in enumerate(parts):
            r = raw[k + 1 + j] if k + 1 + j < len(raw) else ""
            if r.strip().rstrip(",") != json.dumps(part, ensure_ascii=False):
                entries = None
                break
            entries.append((k + 2 + j, r.index('"') + 1, part))
        if entries is not None:
            out[cell.index] = entries
            pos = k + 1 + len(parts)
    return out


def _read_text(path: Path) -> str:
    if not path.exists():
        raise InputError(path, "no such file or folder")
    if path.is_dir():
        raise InputError(path, "is a folder, not a file")
    try:
        data = path.read_bytes()
    except PermissionError:
        raise InputError(path, "permission denied: cannot read the file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read the file ({exc.strerror or exc})") from None
    if b"\x00" in data[:8192]:
        raise InputError(path, "binary file, not a notebook or Python script")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (byte {exc.start}): a binary file?") from None


def _kernel_language(nb: nbformat.NotebookNode) -> str | None:
    meta = nb.get("metadata", {})
    lang = (meta.get("kernelspec") or {}).get("language") or (meta.get("language_info") or {}).get("name")
    return str(lang).lower() if lang else None


def _load_notebook(path: Path, text: str) -> Source:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not a notebook: invalid JSON at line {exc.lineno}, column {exc.colno} "
                               f"({exc.msg})") from None
    if not isinstance(raw, dict) or "nbformat" not in raw:
        raise InputError(path, "not a notebook: the JSON has no 'nbformat' field")
    major = raw.get("nbformat")
    if major != 4:
        raise InputError(path, f"nbformat {major} notebook; msnb reads nbformat 4 (convert it with "
                               f"`jupyter nbconvert --to notebook --nbformat 4 {path.name}`)")
    try:
        nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "top level"
        raise InputError(path, f"not a valid nbformat 4 notebook: {exc.message} (at {where})") from None
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise InputError(path, f"not a valid nbformat 4 notebook ({type(exc).__name__}: {exc})") from None
    lang = _kernel_language(nb)
    if lang is not None and lang != "python":
        name = (nb.metadata.get("kernelspec") or {}).get("name", lang)
        raise InputError(path, f"kernel {name!r} runs {lang}, not Python: msnb only migrates Python notebooks")
    cells = [Cell(i, c.get("source", ""), c.get("cell_type", "code")) for i, c in enumerate(nb.cells)]
    return Source(path, "notebook", text, nb, cells)


def load_source(path: str | os.PathLike) -> Source:
    """Read a notebook or script; :class:`InputError` when it is unusable."""
    path = Path(path)
    if path.suffix not in SUFFIXES and not path.is_dir():
        if not path.exists():
            raise InputError(path, "no such file or folder")
        raise InputError(path, f"unsupported file type {path.suffix or '(none)'!r}: expected .ipynb or .py")
    text = _read_text(path)
    if path.suffix == ".ipynb":
        return _load_notebook(path, text)
    return Source(path, "script", text, None, [Cell(None, text)])


def iter_paths(paths) -> list[Path]:
    """Files named by ``paths``: files as given, folders searched for
    ``.ipynb`` and ``.py`` files (hidden folders, caches and checkpoints
    skipped), in sorted order; a missing path is kept so that loading it
    reports the error."""
    out: list[Path] = []
    for p in map(Path, paths):
        if not p.is_dir():
            out.append(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
            out.extend(Path(root) / f for f in sorted(files) if f.endswith(SUFFIXES) and not f.startswith("."))
    return out
