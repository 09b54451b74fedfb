"""Python numbers refused where PyTorch's argument parser refuses them.

PyTorch's native functions have typed signatures: ``torch.maximum(input, other)``
takes two Tensors only, ``torch.eq(input, other)`` a Tensor and a Tensor or a
number, ``torch.pow(self, exponent)`` a number on either side but not on both.
A call outside every overload is a ``TypeError`` from the parser, before any
kernel runs.  msnb's implementations accept numbers anywhere (they build
tensors from them), so the torch namespaces wrap the functions listed here to
refuse what PyTorch refuses, with its wording.  Only the public namespace
bindings are wrapped: msnb's own code calls the implementations directly.
"""

from __future__ import annotations

import functools
import numbers

__all__ = ["TENSORS_ONLY", "TENSOR_FIRST", "NOT_TWO_NUMBERS", "apply"]

#: both operands must be Tensors (PyTorch has no Scalar overload): the second one's parameter name,
#: or both names when the first is not ``input``
TENSORS_ONLY = {
    "torch": {n: "other" for n in ("fmax", "fmin", "maximum", "minimum", "ldexp", "logaddexp", "logaddexp2",
                                   "hypot", "gcd", "lcm", "igamma", "igammac", "logical_and", "logical_or",
                                   "logical_xor", "isclose", "atan2", "arctan2", "nextafter")} | {
        "heaviside": "values", "complex": ("real", "imag"), "polar": ("abs", "angle")},
    "torch.special": {"gammainc": "other", "gammaincc": "other"},
}
#: the first operand must be a Tensor, the second may be a number
TENSOR_FIRST = {
    "torch": ("eq", "ne", "ge", "gt", "le", "lt", "greater", "greater_equal", "less", "less_equal", "not_equal",
              "copysign", "clamp_max", "clamp_min", "max", "min", "fmod", "rsub"),
}
#: a number on either side, not on both
NOT_TWO_NUMBERS = {
    "torch": ("remainder", "pow", "float_power", "xlogy", "bitwise_left_shift", "bitwise_right_shift", "bitwise_and",
              "bitwise_or", "bitwise_xor"),
    "torch.special": ("xlog1py", "xlogy", "zeta", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
                      "chebyshev_polynomial_v", "chebyshev_polynomial_w", "hermite_polynomial_h",
                      "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
                      "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                      "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w"),
}


def _is_number(x) -> bool:
    return isinstance(x, numbers.Number) and not hasattr(x, "shape")  # numpy scalars have a shape: arrays


def _kind(x) -> str:
    return type(x).__name__ if _is_number(x) else "Tensor"


def _operands(args, kwargs, first, second):
    a = args[0] if args else kwargs.get(first)
    b = args[1] if len(args) > 1 else kwargs.get(second)
    return a, b


def _invalid(qual, a, b):
    return TypeError(f"{qual}() received an invalid combination of arguments - got ({_kind(a)}, {_kind(b)}), but "
                     f"expected one of its Tensor signatures")


def _wrap(fn, name, qual, rule, names=("input", "other")):
    first, second = names

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        a, b = _operands(args, kwargs, first, second)
        if rule == "tensors":
            for pos, (what, v) in enumerate(((first, a), (second, b)), 1):
                if _is_number(v):
                    raise TypeError(f"{name}(): argument '{what}' (position {pos}) must be Tensor, "
                                    f"not {type(v).__name__}")
        elif _is_number(a) and (rule == "first" or _is_number(b)):
            raise _invalid(qual, a, b)
        return fn(*args, **kwargs)

    wrapper._msnb_number_args = True
    return wrapper


def apply(namespace: dict, module: str) -> None:
    """Wrap ``namespace``'s functions (a module's globals) listed for PyTorch's ``module``."""
    prefix = "special_" if module == "torch.special" else ""  # PyTorch's parser names torch.special.x special_x
    rules = [(n, "tensors", s if isinstance(s, tuple) else ("input", s)) for n, s in TENSORS_ONLY.get(module, {}).items()]
    rules += [(n, "first", ("input", "other")) for n in TENSOR_FIRST.get(module, ())]
    rules += [(n, "two", ("input", "other")) for n in NOT_TWO_NUMBERS.get(module, ())]
    for name, rule, names in rules:
        fn = namespace.get(name)
        if not callable(fn) or getattr(fn, "_msnb_number_args", False):
            continue
        wrapped = _wrap(fn, name, prefix + name, rule, names)
        wrapped.__module__, wrapped.__qualname__ = namespace["__name__"], name  # pickled by reference
        namespace[name] = wrapped
