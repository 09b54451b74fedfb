"""``torch.testing.assert_close``: PyTorch's closeness rules and messages.

Tensors (and numpy arrays) must agree in shape, device, dtype (unless
``check_dtype=False``, then both are promoted) and layout, then in value:
``|actual - expected| <= atol + rtol * |expected|`` elementwise, with each
dtype's default tolerances when neither ``rtol`` nor ``atol`` is given, and
exact equality for integers and bools.  Sequences and mappings compare item
by item; Python numbers compare as scalars.  A mismatch raises
``AssertionError`` with PyTorch's message."""

from __future__ import annotations

import cmath
import collections.abc as abc
import math

import numpy as np

__all__ = ["assert_close", "default_tolerances"]

#: (rtol, atol) per dtype name; others compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def default_tolerances(*dtypes):
    """The largest default ``(rtol, atol)`` over ``dtypes``."""
    tols = [_TOLERANCES.get(_dtype_name(d), (0.0, 0.0)) for d in dtypes] or [(0.0, 0.0)]
    return max(r for r, _ in tols), max(a for _, a in tols)


class _Mismatch(Exception):
    def __init__(self, msg, path=()):
        super().__init__(msg)
        self.msg = msg
        self.path = path


def _is_tensor(x):
    from .._tensor import Tensor
    return isinstance(x, (Tensor, np.ndarray))


def _is_number(x):
    return isinstance(x, (bool, int, float, complex, np.number, np.bool_))


def _to_tensor(x):
    from .._ops.creation import tensor
    return tensor(x) if isinstance(x, np.ndarray) else x


def _tolerances(rtol, atol, *dtypes):
    if (rtol is None) ^ (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is None:
        return default_tolerances(*dtypes)
    return rtol, atol


def _attr_mismatch(name, a, e):
    return _Mismatch(f"The values for attribute '{name}' do not match: {a} != {e}.")


def _fmt_index(flat, shape):
    return str(tuple(int(i) for i in np.unravel_index(flat, shape))) if shape else "()"


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                     check_stride):
    from .. import _dtype as D
    a, e = _to_tensor(actual), _to_tensor(expected)
    if a.shape != e.shape:
        raise _attr_mismatch("shape", a.shape, e.shape)
    if check_device and a.device != e.device:
        raise _attr_mismatch("device", a.device, e.device)
    if a.dtype != e.dtype:
        if check_dtype:
            raise _attr_mismatch("dtype", a.dtype, e.dtype)
        common = D.promote_types(a.dtype, e.dtype)
        a, e = a.to(common), e.to(common)
    if check_layout and a.layout != e.layout:
        raise _attr_mismatch("layout", a.layout, e.layout)
    if check_stride and a.stride() != e.stride():
        raise _attr_mismatch("stride()", a.stride(), e.stride())
    rtol, atol = _tolerances(rtol, atol, a.dtype, e.dtype)
    exact = not (a.dtype.is_floating_point or a.dtype.is_complex)
    an, en = _numpy(a), _numpy(e)
    if exact:
        an, en = an.astype(np.int64) if an.dtype == np.bool_ else an, en.astype(np.int64) if en.dtype == np.bool_ \
            else en
        close = an == en
    else:
        close = _isclose(an, en, rtol, atol, equal_nan)
    if close.all():
        return
    if rtol == 0 and atol == 0:  # PyTorch words a zero-tolerance comparison as equality
        exact_words = True
    else:
        exact_words = exact
    kind = "equal" if exact_words else "close"
    if a.dim() == 0:  # PyTorch reports a 0-d mismatch as scalars
        av, ev = an.item(), en.item()
        diff = abs(av - ev)
        rel = diff / abs(ev) if ev else math.inf
        tail = ("", "") if exact_words else (f" (up to {atol} allowed)", f" (up to {rtol} allowed)")
        raise _Mismatch(f"Scalars are not {kind}!\n\nExpected {ev} but got {av}.\nAbsolute difference: {diff}{tail[0]}\n"
                        f"Relative difference: {rel}{tail[1]}")
    n_bad, n = int((~close).sum()), close.size
    with np.errstate(all="ignore"):
        abs_diff = np.abs(an - en)
        abs_diff = np.where(close, 0, abs_diff)
        denom = np.abs(en).astype(abs_diff.dtype if not exact else np.float32)
        rel_diff = np.where(close, 0, (abs_diff.astype(np.float32) if exact else abs_diff) / denom)
    i_abs = int(np.nanargmax(abs_diff.reshape(-1))) if not np.isnan(abs_diff).any() else \
        int(np.argmax(np.isnan(abs_diff.reshape(-1))))
    i_rel = int(np.nanargmax(rel_diff.reshape(-1))) if not np.isnan(rel_diff).any() else \
        int(np.argmax(np.isnan(rel_diff.reshape(-1))))
    shape = tuple(a.shape)
    max_abs = abs_diff.reshape(-1)[i_abs].item()
    max_rel = float(rel_diff.reshape(-1)[i_rel].item())
    lines = [f"Tensor-likes are not {kind}!", "", f"Mismatched elements: {n_bad} / {n} ({100 * n_bad / n:.1f}%)"]
    abs_s = f"Greatest absolute difference: {max_abs} at index {_fmt_index(i_abs, shape)}"
    rel_s = f"Greatest relative difference: {max_rel} at index {_fmt_index(i_rel, shape)}"
    if not exact_words:
        abs_s += f" (up to {atol} allowed)"
        rel_s += f" (up to {rtol} allowed)"
    raise _Mismatch("\n".join(lines + [abs_s, rel_s]))


def _numpy(t):
    t = t.detach()
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    return np.asarray(t.numpy())


def _isclose(a, e, rtol, atol, equal_nan):
    with np.errstate(all="ignore"):
        dt = a.dtype
        close = np.abs(a - e) <= (dt.type(atol) + np.abs(dt.type(rtol) * e)) if dt.kind == "f" else \
            np.abs(a - e) <= atol + np.abs(rtol * e)
        close = close | (a == e)
        if equal_nan:
            close = close | (np.isnan(a) & np.isnan(e))
    return np.asarray(close)


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and type(actual) is not type(expected) and not (isinstance(actual, bool) == isinstance(
            expected, bool) and isinstance(actual, int) and isinstance(expected, int)):
        raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    exact = isinstance(actual, (bool, int)) and isinstance(expected, (bool, int))
    if exact:
        rtol, atol = _tolerances(rtol, atol)
        if actual == expected:
            return
        diff = abs(actual - expected)
        rel = diff / abs(expected) if expected else math.inf
        raise _Mismatch(f"Scalars are not equal!\n\nExpected {expected} but got {actual}.\n"
                        f"Absolute difference: {diff}\nRelative difference: {rel}")
    rtol, atol = _tolerances(rtol, atol, "float64" if not isinstance(actual, complex) else "complex128")
    a, e = complex(actual), complex(expected)
    if a == e or (equal_nan and cmath.isnan(a) and cmath.isnan(e)):
        return
    diff = abs(actual - expected)
    if not (math.isnan(diff) or math.isinf(diff)) and diff <= atol + rtol * abs(expected):
        return
    rel = diff / abs(expected) if expected else math.inf
    raise _Mismatch(f"Scalars are not close!\n\nExpected {expected} but got {actual}.\n"
                    f"Absolute difference: {diff} (up to {atol} allowed)\n"
                    f"Relative difference: {rel} (up to {rtol} allowed)")


def _compare(actual, expected, path, opts):
    seq = (abc.Sequence,)
    if isinstance(actual, seq) and isinstance(expected, seq) and not isinstance(actual, str) \
            and not isinstance(expected, str) and not _is_tensor(actual):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + (i,), opts)
        return
    if isinstance(actual, abc.Mapping) and isinstance(expected, abc.Mapping):
        ka, ke = list(actual), list(expected)
        if set(ka) != set(ke):
            missing = [k for k in ke if k not in actual]
            extra = [k for k in ka if k not in expected]
            raise _Mismatch("The keys of the mappings do not match:\n"
                            + (f"Missing keys in the actual mapping: {sorted(missing, key=repr)}\n" if missing else "")
                            + (f"Additional keys in the actual mapping: {sorted(extra, key=repr)}" if extra else ""),
                            path)
        for k in ke:
            _compare(actual[k], expected[k], path + (k,), opts)
        return
    try:
        if _is_tensor(actual) and _is_tensor(expected):
            _compare_tensors(actual, expected, opts["rtol"], opts["atol"], opts["equal_nan"], opts["check_device"],
                             opts["check_dtype"], opts["check_layout"], opts["check_stride"])
            return
        if _is_number(actual) and _is_number(expected):
            a = actual.item() if isinstance(actual, (np.number, np.bool_)) else actual
            e = expected.item() if isinstance(expected, (np.number, np.bool_)) else expected
            _compare_numbers(a, e, opts["rtol"], opts["atol"], opts["equal_nan"], opts["check_dtype"])
            return
    except _Mismatch as m:
        m.path = path
        raise
    raise TypeError(f"No comparison pair was able to handle inputs of type {_type_name(actual)} and "
                    f"{_type_name(expected)}.")


def _type_name(x):
    from .._tensor import Tensor
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """msnb implementation of ``torch.testing.assert_close``."""
    __tracebackhide__ = True
    opts = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                check_layout=check_layout, check_stride=check_stride)
    if (rtol is None) ^ (atol is None):  # one of the two alone is refused up front
        _tolerances(rtol, atol)
    try:
        _compare(actual, expected, (), opts)
    except _Mismatch as m:
        text = m.msg
        if m.path:
            text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in m.path)
        if callable(msg):
            text = msg(text)
        elif msg is not None:
            text = msg
        raise AssertionError(text) from None
