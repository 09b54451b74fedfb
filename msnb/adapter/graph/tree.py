"""Flattening call arguments and results to a list of tensors and a hashable spec.

A spec is part of a region's guard key (so Python constants in arguments,
like ``dim=1`` or ``None``, select their own graph) and rebuilds the same
structure around new tensors.  Tensors, tuples, lists, dicts, and the Python
constants ``None``/bool/int/float/str are supported; anything else raises
:class:`Unsupported` naming its type.
"""

from __future__ import annotations

__all__ = ["flatten", "unflatten", "Unsupported"]

_CONST = (type(None), bool, int, float, str)


class Unsupported(TypeError):
    """A value graph mode cannot take apart; the message names its type."""


def flatten(obj, Tensor, leaves=None):
    """``(leaves, spec)``: the tensors of ``obj`` in order, and its structure."""
    if leaves is None:
        leaves = []
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return leaves, "T"
    if isinstance(obj, _CONST):
        return leaves, ("c", type(obj).__name__, obj)
    if isinstance(obj, (tuple, list)):
        kids = tuple(flatten(o, Tensor, leaves)[1] for o in obj)
        kind = "tuple" if type(obj) is tuple else "list" if type(obj) is list else None
        if kind is None:  # a namedtuple or other subclass: keep the class
            return leaves, ("seq", type(obj), kids)
        return leaves, (kind, kids)
    if isinstance(obj, dict):
        keys = tuple(obj)
        if not all(isinstance(k, _CONST) for k in keys):
            raise Unsupported("a dict with non-constant keys")
        return leaves, ("dict", type(obj), keys, tuple(flatten(obj[k], Tensor, leaves)[1] for k in keys))
    raise Unsupported(type(obj).__name__)


def unflatten(spec, leaves):
    """Rebuild ``spec``'s structure around ``leaves`` (an iterator or sequence)."""
    return _build(spec, iter(leaves))


def _build(spec, it):
    if spec == "T":
        return next(it)
    kind = spec[0]
    if kind == "c":
        return spec[2]
    if kind == "tuple":
        return tuple(_build(s, it) for s in spec[1])
    if kind == "list":
        return [_build(s, it) for s in spec[1]]
    if kind == "seq":
        items = [_build(s, it) for s in spec[2]]
        cls = spec[1]
        return cls(*items) if hasattr(cls, "_fields") else cls(items)
    if kind == "dict":
        return spec[1]((k, _build(s, it)) for k, s in zip(spec[2], spec[3]))
    raise ValueError(f"bad spec {spec!r}")
