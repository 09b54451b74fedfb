"""MindSpore ``Cell`` attribute names (``data/cell_attributes.json``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

__all__ = ["cell_attributes"]


@functools.lru_cache(maxsize=1)
def cell_attributes() -> tuple[frozenset[str], frozenset[str]]:
    """``(all Cell attribute names, names that stay unsafe)``."""
    path = Path(__file__).resolve().parent.parent / "data" / "cell_attributes.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    return frozenset(doc["all"]), frozenset(doc["unsafe"])
