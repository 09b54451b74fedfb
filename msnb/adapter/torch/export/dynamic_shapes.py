"""msnb implementation of ``torch.export.dynamic_shapes``: ``Dim`` (named
dynamic dimensions with a range), the hints ``Dim.AUTO`` / ``Dim.STATIC`` /
``Dim.DYNAMIC``, ``dims(...)`` and the checks of a ``dynamic_shapes``
argument against the example inputs (PyTorch's messages and exception types)."""

from __future__ import annotations

import enum
import inspect

from .._missing import module_getattr
from ._errors import ConstraintViolationError, UserError

__all__ = ["Dim", "dims"]

_INT_OO = "int_oo"


class _DimHintType(enum.Enum):
    AUTO = enum.auto()
    STATIC = enum.auto()
    DYNAMIC = enum.auto()


class DimHint:
    """``Dim.AUTO`` / ``Dim.STATIC`` / ``Dim.DYNAMIC`` (PyTorch's ``_DimHint``)."""

    __slots__ = ("type", "min", "max")

    def __init__(self, type_, min=None, max=None):  # noqa: A002 - PyTorch's names
        self.type, self.min, self.max = type_, min, max

    def __repr__(self):
        return f"DimHint({self.type.name})"

    def __eq__(self, other):
        return isinstance(other, DimHint) and (self.type, self.min, self.max) == (other.type, other.min, other.max)

    def __hash__(self):
        return hash((self.type, self.min, self.max))

    def __call__(self, min=None, max=None):  # noqa: A002 - Dim.DYNAMIC(min=2, max=8)
        return DimHint(self.type, min, max)


class Dim:
    """msnb implementation of ``torch.export.Dim``: a named dynamic dimension
    with an inclusive range ``[min, max]`` (``Dim('n', min=2, max=64)``)."""

    AUTO = DimHint(_DimHintType.AUTO)
    STATIC = DimHint(_DimHintType.STATIC)
    DYNAMIC = DimHint(_DimHintType.DYNAMIC)

    def __init__(self, name: str, *, min: int | None = None, max: int | None = None):  # noqa: A002
        lo = 0 if min is None else min
        hi = _INT_OO if max is None else max
        if hi != _INT_OO and not lo <= hi:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        if not str(name).isidentifier():
            raise UserError(f"Dim name must be a valid identifier, got {name}")
        self.__name__ = name
        self.min = lo
        self.max = hi

    def __repr__(self):
        parts = [repr(self.__name__)]
        if self.min != 2:  # PyTorch leaves out its usual lower bound
            parts.append(f"min={self.min}")
        if self.max != _INT_OO:
            parts.append(f"max={self.max}")
        return f"Dim({', '.join(parts)})"

    def _derived(self, *_):
        from .._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message("torch.export.Dim arithmetic (derived dimensions)"))

    __add__ = __radd__ = __sub__ = __mul__ = __rmul__ = _derived


def dims(*names: str, min: int | None = None, max: int | None = None) -> tuple[Dim, ...]:  # noqa: A002
    """msnb implementation of ``torch.export.dims``: one :class:`Dim` per name."""
    return tuple(Dim(n, min=min, max=max) for n in names)


def _arg_names(fn, args, kwargs):
    sig = inspect.signature(fn)
    bound = sig.bind(*args, **kwargs)
    return list(bound.arguments)


def spec_of_inputs(fn, args: tuple, kwargs: dict, dynamic_shapes) -> dict:
    """``{(arg name, dim index): Dim | DimHint}`` for the tensor inputs, checked as PyTorch checks it.

    ``dynamic_shapes`` may be a dict keyed by argument name, or a tuple / list in
    argument order; each entry is ``None``, a tuple / list per dimension or a
    dict ``{dim: Dim}``."""
    from .. import Tensor
    names = _arg_names(fn, args, kwargs)
    if dynamic_shapes is None:
        return {}
    if isinstance(dynamic_shapes, dict):
        if sorted(dynamic_shapes) != sorted(names):
            raise UserError(f"When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg names "
                            f"{names} of `inputs`, but here they are {list(dynamic_shapes)}. Alternatively, you could "
                            "also ignore arg names entirely and specify `dynamic_shapes` as a list/tuple matching "
                            "`inputs`.")
        per_arg = dynamic_shapes
    elif isinstance(dynamic_shapes, (tuple, list)):
        if len(dynamic_shapes) != len(names):
            raise UserError(f"When `dynamic_shapes` is specified as a list/tuple, its length must match the number "
                            f"of inputs {len(names)}, but here it is {len(dynamic_shapes)}.")
        per_arg = dict(zip(names, dynamic_shapes))
    else:
        raise UserError(f"Unexpected dynamic_shape {dynamic_shapes!r}: expected a dict, a list or a tuple")
    values = inspect.signature(fn).bind(*args, **kwargs).arguments
    out = {}
    for name, spec in per_arg.items():
        if spec is None:
            continue
        value = values[name]
        if not isinstance(value, Tensor):
            raise UserError(f"Dynamic shape specification {spec!r} for input {name} that is not a tensor: msnb "
                            "exports non-tensor inputs as constants")
        items = spec.items() if isinstance(spec, dict) else enumerate(spec)
        for i, d in items:
            if d is None or d == Dim.STATIC:
                continue
            if not isinstance(d, (Dim, DimHint)):
                raise UserError(f"Unexpected dimension mapped to index {i} in input tensor shape {spec} specified "
                                f"at `dynamic_shapes['{name}']` (expected None, an int, a Dim, Dim.AUTO, Dim.STATIC, "
                                f"or Dim.DYNAMIC, but got {d!r} instead)")
            if i >= value.dim():
                raise UserError(f"Dynamic shape specification for {name} names dimension {i}, but the input has "
                                f"{value.dim()} dimensions")
            size = value.shape[i]
            if isinstance(d, Dim) and not (d.min <= size and (d.max == _INT_OO or size <= d.max)):
                raise ConstraintViolationError(f"{size} not in range [{d.min}, {d.max}]")
            out[(name, i)] = d
    return out


__getattr__ = module_getattr("torch.export.dynamic_shapes")
