"""``torch.dtype`` objects and PyTorch's type-promotion rules.

Each ``torch.float32`` etc. is an instance of a subclass of MindSpore's own
dtype class, so it can be handed to any MindSpore API unchanged, while it
prints and behaves as PyTorch's (``repr`` is ``torch.float32``,
``is_floating_point``, ``itemsize``).  MindSpore's classes are subclassed,
never modified.
"""

from __future__ import annotations

import builtins

import numpy as np

from .._ms import TensorPy as _TensorPy, ms

__all__ = [
    "dtype", "float16", "half", "bfloat16", "float32", "float", "float64", "double",
    "int8", "int16", "short", "int32", "int", "int64", "long", "uint8", "bool",
    "complex64", "complex128", "cfloat", "cdouble",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type",
    "can_cast", "finfo", "iinfo", "is_floating_point", "is_complex",
    "to_torch_dtype",
]

_MS_TYPE = type(ms.float32).__mro__[-3]  # mindspore._c_expression.typing.Type


class dtype:  # noqa: N801 - torch spells it in lower case
    """Marker base so ``isinstance(x, torch.dtype)`` works for every dtype."""

    __slots__ = ()


def _make(ms_type, torch_name: str, np_type, kind: str, bits: int):
    base = type(ms_type)
    cls = type(
        f"_torch_{torch_name}",
        (base, dtype),
        {
            "__repr__": lambda self: f"torch.{torch_name}",
            "__str__": lambda self: f"torch.{torch_name}",
            "__reduce__": lambda self: (to_torch_dtype, (ms_type,)),
            "is_floating_point": kind == "f",
            "is_complex": kind == "c",
            "is_signed": kind in "fic",
            "itemsize": bits // 8,
            "numpy": np.dtype(np_type),
            "_kind": kind,
            "_bits": bits,
            "_name": torch_name,
        },
    )
    # Builtin Number types take the bit width; Bool takes nothing.
    try:
        obj = cls(bits)
    except TypeError:
        obj = cls()
    if obj != ms_type:
        raise RuntimeError(f"msnb: dtype {torch_name} does not match MindSpore's {ms_type}")
    return obj


float16 = half = _make(ms.float16, "float16", np.float16, "f", 16)
bfloat16 = _make(ms.bfloat16, "bfloat16", np.float32, "f", 16)
float32 = float = _make(ms.float32, "float32", np.float32, "f", 32)
float64 = double = _make(ms.float64, "float64", np.float64, "f", 64)
int8 = _make(ms.int8, "int8", np.int8, "i", 8)
int16 = short = _make(ms.int16, "int16", np.int16, "i", 16)
int32 = int = _make(ms.int32, "int32", np.int32, "i", 32)
int64 = long = _make(ms.int64, "int64", np.int64, "i", 64)
uint8 = _make(ms.uint8, "uint8", np.uint8, "u", 8)
bool = _make(ms.bool_, "bool", np.bool_, "b", 8)
complex64 = cfloat = _make(ms.complex64, "complex64", np.complex64, "c", 64)
complex128 = cdouble = _make(ms.complex128, "complex128", np.complex128, "c", 128)

_ALL = [float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool, complex64, complex128]
# MindSpore dtype -> torch dtype.  MindSpore dtypes hash and compare by value.
_FROM_MS = {d: d for d in _ALL}
_FROM_NP = {np.dtype(np.float16): float16, np.dtype(np.float32): float32,
            np.dtype(np.float64): float64, np.dtype(np.int8): int8,
            np.dtype(np.int16): int16, np.dtype(np.int32): int32,
            np.dtype(np.int64): int64, np.dtype(np.uint8): uint8,
            np.dtype(np.bool_): bool, np.dtype(np.complex64): complex64,
            np.dtype(np.complex128): complex128}

_default = float32


def to_torch_dtype(d) -> dtype:
    """Map a MindSpore / numpy / torch dtype (or a Python type) to a torch dtype."""
    if isinstance(d, dtype):
        return d
    try:
        return _FROM_MS[d]
    except (KeyError, TypeError):
        pass
    if d is builtins.float:
        return _default
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if d is builtins.complex:
        return complex64
    try:
        return _FROM_NP[np.dtype(d)]
    except (KeyError, TypeError):
        raise TypeError(f"msnb: cannot interpret {d!r} as a torch.dtype") from None


_SCALAR_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
                 "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
                 "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


_C_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
            "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
            "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _c_name_of(d) -> str:
    """PyTorch's C++ type name (``float``, ``long int`` ...) used in its ``out=`` dtype errors."""
    return _C_NAMES[to_torch_dtype(d)._name]


def check_out_dtype(out, dtype) -> None:
    """PyTorch's refusal of an ``out=`` tensor of another dtype than the result's."""
    if out is not None and out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_c_name_of(dtype)}, but got {_c_name_of(out.dtype)} "
                           "instead")


def _name_of(d) -> str:
    """PyTorch's C++ scalar-type name (``Float``, ``Long`` ...) used in its error messages."""
    return _SCALAR_NAMES[to_torch_dtype(d)._name]


def get_default_dtype() -> dtype:
    """msnb implementation of ``torch.get_default_dtype``."""
    return _default


def set_default_dtype(d) -> None:
    """msnb implementation of ``torch.set_default_dtype`` (float types only)."""
    global _default
    d = to_torch_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default = d


def is_floating_point(t) -> builtins.bool:
    """msnb implementation of ``torch.is_floating_point``."""
    return t.dtype.is_floating_point


def is_complex(t) -> builtins.bool:
    """msnb implementation of ``torch.is_complex``."""
    return t.dtype.is_complex


# --- promotion -------------------------------------------------------------
# Category order: bool < integer < floating < complex.
_CAT = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(a, b) -> dtype:
    """msnb implementation of ``torch.promote_types`` (tensor-tensor rule)."""
    a, b = to_torch_dtype(a), to_torch_dtype(b)
    if a is b:
        return a
    return _PROMOTE[(a, b)]


def _slow_promote(a: dtype, b: dtype) -> dtype:
    if a == b:
        return a
    ca, cb = _CAT[a._kind], _CAT[b._kind]
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi._kind == "c" and lo._kind == "f" and lo._bits == 64:
            return complex128
        return hi
    if a._kind == "f":
        if {a._name, b._name} == {"float16", "bfloat16"}:
            return float32
        return a if a._bits >= b._bits else b
    if a._kind == "c":
        return a if a._bits >= b._bits else b
    # integers: uint8 with a signed type needs the next wider signed type
    if a._kind == "u" or b._kind == "u":
        u, s = (a, b) if a._kind == "u" else (b, a)
        if s._kind == "u":
            return u
        return {8: int16, 16: int16, 32: int32, 64: int64}[s._bits]
    return a if a._bits >= b._bits else b


_PROMOTE = {(a, b): _slow_promote(a, b) for a in _ALL for b in _ALL}


def _scalar_kind(x) -> str:
    if isinstance(x, builtins.bool):
        return "b"
    if isinstance(x, builtins.int):
        return "i"
    if isinstance(x, builtins.float):
        return "f"
    if isinstance(x, builtins.complex):
        return "c"
    raise TypeError(type(x))


def result_type(*operands) -> dtype:
    """msnb implementation of ``torch.result_type`` for tensors and Python scalars.

    Dimensioned tensors win over zero-dim tensors, which win over Python
    scalars, unless a lower group carries a higher category (int tensor +
    float scalar gives the default float dtype), as in PyTorch."""
    dim_t = zero_t = None
    scal_cat = -1
    for x in operands:
        if isinstance(x, _TensorPy):  # adapter tensors and plain MindSpore ones alike
            d = _FROM_MS[x.dtype]
            if x.ndim:
                dim_t = d if dim_t is None else promote_types(dim_t, d)
            else:
                zero_t = d if zero_t is None else promote_types(zero_t, d)
        else:
            scal_cat = max(scal_cat, _CAT[_scalar_kind(x)])
    res = dim_t
    if zero_t is not None and (res is None or _CAT[zero_t._kind] > _CAT[res._kind]):
        res = zero_t if res is not float64 else promote_types(res, zero_t)
    if scal_cat >= 0 and (res is None or scal_cat > _CAT[res._kind]):
        # a complex scalar keeps a float64 tensor's precision (complex128), as in PyTorch
        complex_default = complex128 if (_default is float64 or res is float64) else complex64
        res = (bool, int64, _default, complex_default)[scal_cat]
    return res


def can_cast(from_, to) -> builtins.bool:
    """msnb implementation of ``torch.can_cast`` (same-kind casting)."""
    return _CAT[to_torch_dtype(from_)._kind] <= _CAT[to_torch_dtype(to)._kind]


class finfo:  # noqa: N801
    """msnb implementation of ``torch.finfo``."""

    def __init__(self, type=None):  # noqa: A002 - torch's name
        d = to_torch_dtype(type or _default)
        if not d.is_floating_point:
            raise TypeError(f"torch.finfo() requires a floating point input type, got {d}")
        info = np.finfo(np.float32 if d is bfloat16 else d.numpy)
        self.dtype = repr(d).split(".")[-1]
        self.bits = d._bits
        if d is bfloat16:
            self.eps, self.max, self.min, self.tiny = 0.0078125, 3.3895313892515355e38, -3.3895313892515355e38, 1.1754943508222875e-38
            self.resolution = 0.01
        else:
            self.eps, self.max, self.min = builtins.float(info.eps), builtins.float(info.max), builtins.float(info.min)
            self.tiny = builtins.float(info.tiny)
            self.resolution = builtins.float(info.resolution)
        self.smallest_normal = self.tiny

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801
    """msnb implementation of ``torch.iinfo``."""

    def __init__(self, type):  # noqa: A002
        d = to_torch_dtype(type)
        info = np.iinfo(d.numpy)
        self.bits, self.min, self.max = d._bits, builtins.int(info.min), builtins.int(info.max)
        self.dtype = repr(d).split(".")[-1]
