"""Atomic file writes: a temporary file in the same folder, then ``os.replace``.

A failure at any point before the rename (an exception while writing, a
full disk, an interrupt) removes the temporary file and leaves whatever was
at the destination untouched; readers never see a half-written file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "backup_path", "make_backup"]


def atomic_write(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write ``data`` (``str`` as UTF-8) to ``path`` atomically; keeps an
    existing file's permission bits."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def backup_path(path: str | os.PathLike) -> Path:
    """First free name of ``x.ipynb.bak``, ``x.ipynb.bak1``, ... beside ``path``."""
    path = Path(path)
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak{n}")
        n += 1
    return candidate


def make_backup(path: str | os.PathLike) -> Path:
    """Copy ``path`` to :func:`backup_path` atomically; returns the backup."""
    dest = backup_path(path)
    atomic_write(dest, Path(path).read_bytes())
    shutil.copymode(path, dest)
    return dest
