"""Validation of the JSON bodies the endpoints accept, independent of tornado.

Each problem is one short :class:`BadRequest` message and an HTTP status, so
the editor can show it and nothing else happens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["BadRequest", "CellRequest", "parse_cell_request", "MigrateRequest", "parse_migrate_request",
           "MAX_BODY_BYTES", "MAX_CELL_CHARS"]

#: A whole request (a notebook's sources up to the analyzed cell).
MAX_BODY_BYTES = 4 * 1024 * 1024
#: One cell's source; larger cells are not code a person types.
MAX_CELL_CHARS = 1024 * 1024

_MODES = ("pynative", "graph")


class BadRequest(Exception):
    """A request the endpoint refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class CellRequest:
    """One cell to analyze or fix, with the earlier cells as context."""

    cells: tuple[str, ...]
    index: int
    mode: str
    #: (rule, line, col) of the one finding to fix; None fixes all
    finding: tuple[str, int, int] | None = None

    @property
    def source(self) -> str:
        return self.cells[self.index]

    @property
    def context(self) -> tuple[str, ...]:
        return self.cells[: self.index]


def _decode(body: bytes) -> Any:
    if len(body) > MAX_BODY_BYTES:
        raise BadRequest(f"request body is {len(body)} bytes; msnb accepts at most {MAX_BODY_BYTES}", 413)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"request body is not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"request body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


def _object(body: bytes) -> dict[str, Any]:
    data = _decode(body)
    if not isinstance(data, dict):
        raise BadRequest("request body must be a JSON object")
    return data


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"'{name}' must be an integer")
    return value


def parse_cell_request(body: bytes, *, with_finding: bool = False) -> CellRequest:
    """Check ``{"cells": [str, ...], "index": int, "mode": "pynative"|"graph"}``
    (plus an optional ``"finding": {"rule", "line", "col"}`` when ``with_finding``)."""
    data = _object(body)
    cells = data.get("cells")
    if not isinstance(cells, list) or not cells or not all(isinstance(c, str) for c in cells):
        raise BadRequest("'cells' must be a non-empty list of strings")
    for i, cell in enumerate(cells):
        if len(cell) > MAX_CELL_CHARS:
            raise BadRequest(f"cell {i} has {len(cell)} characters; msnb analyzes at most {MAX_CELL_CHARS}", 413)
    index = _int(data.get("index", len(cells) - 1), "index")
    if not 0 <= index < len(cells):
        raise BadRequest(f"'index' must be between 0 and {len(cells) - 1}, not {index}")
    mode = data.get("mode", "pynative")
    if mode not in _MODES:
        raise BadRequest(f"'mode' must be one of {'|'.join(_MODES)}, not {mode!r}")
    finding = None
    if with_finding and data.get("finding") is not None:
        f = data["finding"]
        if not isinstance(f, dict) or not isinstance(f.get("rule"), str):
            raise BadRequest("'finding' must be {'rule': str, 'line': int, 'col': int}")
        finding = (f["rule"], _int(f.get("line"), "finding.line"), _int(f.get("col"), "finding.col"))
    return CellRequest(tuple(cells), index, mode, finding)


@dataclass(frozen=True)
class MigrateRequest:
    """A notebook to migrate, by its path relative to the server's root folder."""

    path: str
    style: str = "cell"
    overwrite: bool = False


def parse_migrate_request(body: bytes) -> MigrateRequest:
    """Check ``{"path": "dir/x.ipynb", "style": "cell"|"session", "overwrite": bool}``."""
    data = _object(body)
    path = data.get("path")
    if not isinstance(path, str) or not path.strip():
        raise BadRequest("'path' must be the notebook's path, relative to the server's root folder")
    if not path.endswith(".ipynb"):
        raise BadRequest(f"'path' must name a .ipynb notebook, not {path!r}")
    style = data.get("style", "cell")
    if style not in ("cell", "session"):
        raise BadRequest(f"'style' must be cell|session, not {style!r}")
    overwrite = data.get("overwrite", False)
    if not isinstance(overwrite, bool):
        raise BadRequest("'overwrite' must be true or false")
    return MigrateRequest(path, style, overwrite)
