"""Globals for code run by a ``%%torch_on_ascend`` cell.

A cell runs as ``exec(code, CellGlobals(user_ns), user_ns)``: top-level
statements read and write ``user_ns`` as usual, while functions and classes
the cell defines get this object as ``__globals__``.  Its own storage holds
*pins* (names this cell bound to adapter modules, classes and functions), so
``torch`` inside ``train()`` stays the adapter even after a later plain cell
runs ``import torch`` and rebinds ``torch`` in ``user_ns`` to real PyTorch.
Every other name falls through to ``user_ns`` and then to builtins.

CPython 3.11 reads globals of such functions with ``PyObject_GetItem`` (so
``__missing__`` runs), but class bodies read them with a plain dict lookup
and then consult ``__builtins__``; a ``__builtins__`` mapping that falls back
to ``user_ns`` covers that path.  ``global x`` assignments land in this
object's storage: :meth:`CellGlobals.flush` moves them to ``user_ns`` and
runs after the cell and after every later cell.
"""

from __future__ import annotations

import builtins
import weakref
from typing import Any, Iterable

__all__ = ["CellGlobals", "flush_all"]

_INTERNAL = frozenset({"__builtins__", "__name__"})
#: id -> live CellGlobals (a dict is unhashable, so no WeakSet).
_live: "weakref.WeakValueDictionary[int, CellGlobals]" = weakref.WeakValueDictionary()


def _lookup(user_ns: dict, name: str) -> Any:
    try:
        return user_ns[name]
    except KeyError:
        pass
    try:
        return getattr(builtins, name)
    except AttributeError:
        raise KeyError(name) from None


def _cell_import(name, globals=None, locals=None, fromlist=(), level=0):
    """``import`` in code a magic cell defined: torch names resolve to the adapter
    also when the function runs later from a plain cell."""
    from msnb.runtime.importer import import_for_cell_code

    return import_for_cell_code(name, globals, locals, fromlist, level)


class _Builtins(dict):
    """``__builtins__`` for cell code: user namespace first, then builtins.

    CPython reads a few names (``__import__`` for every import statement)
    with a plain dict lookup, so the dunder builtins are stored for real.
    """

    def __init__(self, user_ns: dict) -> None:
        super().__init__((k, v) for k, v in vars(builtins).items() if k.startswith("__"))
        self["__import__"] = _cell_import
        self._user_ns = user_ns

    def __missing__(self, name: str) -> Any:
        return _lookup(self._user_ns, name)


class CellGlobals(dict):
    """Function globals for one magic cell: pins, then ``user_ns``, then builtins."""

    def __init__(self, user_ns: dict) -> None:
        super().__init__()
        self._user_ns = user_ns
        self._pins: dict[str, Any] = {}
        dict.__setitem__(self, "__builtins__", _Builtins(user_ns))
        dict.__setitem__(self, "__name__", user_ns.get("__name__", "__main__"))
        _live[id(self)] = self

    def __missing__(self, name: str) -> Any:
        return _lookup(self._user_ns, name)

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or name in self._user_ns

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default

    @property
    def pins(self) -> dict[str, Any]:
        """Names pinned by this cell (a copy)."""
        return dict(self._pins)

    def pin(self, items: Iterable[tuple[str, Any]]) -> None:
        """Keep ``name -> value`` for this cell's functions whatever ``user_ns`` says."""
        for name, value in items:
            self._pins[name] = value
            dict.__setitem__(self, name, value)

    def flush(self) -> None:
        """Move ``global`` assignments made by the cell's functions into ``user_ns``."""
        for name in [n for n in dict.keys(self) if n not in _INTERNAL]:
            value = dict.__getitem__(self, name)
            if name in self._pins and value is self._pins[name]:
                continue
            self._pins.pop(name, None)
            self._user_ns[name] = value
            dict.__delitem__(self, name)


def flush_all() -> None:
    """Flush every live :class:`CellGlobals` (IPython's post_run_cell hook)."""
    for cell_globals in list(_live.values()):
        cell_globals.flush()
