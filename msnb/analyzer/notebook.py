"""Analyze and fix whole notebooks (for the future ``msnb`` CLI).

Which cells are analyzed: code cells starting with ``%%torch_on_ascend``
(their body; the magic line's ``--mode graph`` / ``--graph`` selects the
mode) and plain code cells that import torch.  Every earlier code cell is
passed as context, so a tensor defined in cell 2 is known in cell 5.
Notebooks are read with ``as_version=NO_CONVERT`` so they keep their format
version when written back (nbstripout's approach).

Locations are ``nb.ipynb:cell N:line:col`` with N counted from 1 over all
cells (the number a user sees when counting cells), while the returned
``cell_index`` is the 0-based index into ``nb.cells``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat

from . import engine
from .finding import Finding
from .masking import cell_magic

__all__ = ["scan_notebook", "fix_notebook", "format_location", "cell_mode", "should_analyze"]

_IMPORTS_TORCH = re.compile(r"^\s*(import|from)\s+(torch|torchvision|msadapter|mindtorch)\b", re.M)
_MODE = re.compile(r"(?:--mode[=\s]+|-m\s+)(graph|pynative)|--(graph|pynative)\b")


def should_analyze(source: str) -> bool:
    """``%%torch_on_ascend`` cells, and plain cells that import torch."""
    magic = cell_magic(source)
    if magic is not None:
        return magic == "torch_on_ascend"
    return bool(_IMPORTS_TORCH.search(source))


def cell_mode(source: str, default: str = "pynative") -> str:
    """Mode requested on a ``%%torch_on_ascend`` line, else ``default``."""
    if cell_magic(source) != "torch_on_ascend":
        return default
    m = _MODE.search(source.lstrip().splitlines()[0])
    return (m.group(1) or m.group(2)) if m else default


def format_location(path: str | Path, cell_index: int, finding: Finding) -> str:
    """``nb.ipynb:cell 3:2:5`` (Ruff / nbQA style, cells counted from 1)."""
    return finding.location(f"{Path(path).name}:cell {cell_index + 1}")


def _code_cells(nb):
    return [(i, c) for i, c in enumerate(nb.cells) if c.get("cell_type") == "code"]


def scan_notebook(path: str | Path, *, mode: str | None = None, registry: dict | None = None
                  ) -> list[tuple[int, Finding]]:
    """``(cell_index, finding)`` for every analyzed cell, in notebook order.
    ``mode`` overrides each cell's own mode."""
    nb = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    out: list[tuple[int, Finding]] = []
    context: list[str] = []
    for index, cell in _code_cells(nb):
        source = cell.source
        if should_analyze(source):
            findings = engine.analyze(source, mode=mode or cell_mode(source), context=tuple(context),
                                      registry=registry)
            out.extend((index, f) for f in findings)
        context.append(source)
    return out


def fix_notebook(path: str | Path, out_path: str | Path | None = None, *, backup: bool = True,
                 registry: dict | None = None) -> list[int]:
    """Apply every safe fix to the analyzed cells and write the notebook to
    ``out_path`` (default: in place).  An existing destination is first
    copied to ``<name>.bak``; with ``backup=False`` overwriting an existing
    file is refused (``FileExistsError``).  Returns the indices of changed
    cells; nothing is written when no cell changed."""
    path = Path(path)
    dest = Path(out_path) if out_path is not None else path
    nb = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    changed: list[int] = []
    context: list[str] = []
    for index, cell in _code_cells(nb):
        source = cell.source
        if should_analyze(source):
            new = engine.fix(source, mode=cell_mode(source), context=tuple(context), registry=registry)
            if new != source:
                cell.source = new
                changed.append(index)
        context.append(cell.source)
    if not changed:
        return changed
    if dest.exists():
        if not backup:
            raise FileExistsError(f"{dest} exists; refusing to overwrite it without a backup (backup=True)")
        shutil.copy2(dest, dest.with_name(dest.name + ".bak"))
    nbformat.write(nb, str(dest))
    return changed
