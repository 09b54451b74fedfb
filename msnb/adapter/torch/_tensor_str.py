"""Printing tensors as PyTorch prints them (PyTorch's ``torch/_tensor_str.py``
rules, written for numpy arrays): one formatter per tensor choosing integer,
fixed or scientific notation from the nonzero finite values, summarisation
past ``threshold`` elements, line wrapping at ``linewidth``, and the
``dtype=`` / ``grad_fn=`` / ``requires_grad=`` suffixes.  ``set_printoptions``
changes the options, as in PyTorch."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["PRINT_OPTS", "set_printoptions", "get_printoptions", "printoptions", "tensor_repr"]


@dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()
_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """msnb implementation of ``torch.set_printoptions``."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Invalid profile {profile!r}: expected one of {sorted(_PROFILES)}")
        for k, v in _PROFILES[profile].items():
            setattr(PRINT_OPTS, k, v)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """msnb implementation of ``torch._tensor_str.get_printoptions``."""
    return dict(vars(PRINT_OPTS))


class printoptions:
    """Context manager form (``torch._tensor_str.printoptions``)."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __enter__(self):
        self.old = get_printoptions()
        set_printoptions(**self.kwargs)

    def __exit__(self, *exc):
        set_printoptions(**self.old)


class _Formatter:
    def __init__(self, arr: np.ndarray, floating: bool):
        self.floating = floating
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = arr.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if vals.size == 0:
            return
        a = np.abs(vals)
        lo, hi = a.min(), a.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if PRINT_OPTS.sci_mode is None \
            else PRINT_OPTS.sci_mode
        p = PRINT_OPTS.precision
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{p}e}") for v in vals.tolist())
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in vals.tolist())
        else:
            self.max_width = max(len(f"{v:.{p}f}") for v in vals.tolist())

    def width(self):
        return self.max_width

    def format(self, value) -> str:
        p = PRINT_OPTS.precision
        if self.floating:
            value = float(value)
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = str(value.item() if hasattr(value, "item") else value)
        return (self.max_width - len(ret)) * " " + ret


def _summarized(arr):
    e = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        return np.concatenate([arr[:e], arr[-e:]]) if arr.shape[0] > 2 * e else arr
    if not e:
        return arr[tuple(slice(0, 0) for _ in arr.shape)]
    rows = list(range(e)) + list(range(arr.shape[0] - e, arr.shape[0])) if arr.shape[0] > 2 * e else \
        range(arr.shape[0])
    return np.stack([_summarized(arr[i]) for i in rows])


class _ComplexFormatter:
    """PyTorch's pair of formatters for complex values: one for the real
    parts, one for the imaginary parts (sign kept), joined as ``a+bj``."""

    def __init__(self, arr):
        self.real = _Formatter(arr.real, True)
        self.imag = _Formatter(arr.imag, True)

    def width(self):
        return self.real.width() + self.imag.width() + 1

    def format(self, value):
        value = complex(value)
        real_str = self.real.format(value.real)
        imag_str = (self.imag.format(value.imag) + "j").lstrip()
        return real_str + imag_str if imag_str[0] in "+-" else real_str + "+" + imag_str


def _vector_str(arr, indent, summarize, fmt):
    element_length = fmt.width() + 2
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * e:
        data = [fmt.format(v) for v in arr[:e]] + [" ..."] + [fmt.format(v) for v in arr[-e:]]
    else:
        data = [fmt.format(v) for v in arr]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(arr, indent, summarize, fmt):
    if arr.ndim == 0:
        return fmt.format(arr)
    if arr.ndim == 1:
        return _vector_str(arr, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    if summarize and arr.shape[0] > 2 * e:
        slices = [_tensor_str(arr[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."] + \
                 [_tensor_str(arr[i], indent + 1, summarize, fmt) for i in range(arr.shape[0] - e, arr.shape[0])]
    else:
        slices = [_tensor_str(arr[i], indent + 1, summarize, fmt) for i in range(arr.shape[0])]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(tensor_str, suffixes, indent):
    out = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_line_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def array_str(arr: np.ndarray, floating: bool, indent: int) -> str:
    """The bracketed body PyTorch prints for ``arr`` (no prefix or suffixes)."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    shown = _summarized(arr) if summarize else arr
    fmt = _ComplexFormatter(shown) if np.iscomplexobj(arr) else _Formatter(shown, floating)
    return _tensor_str(arr, indent, summarize, fmt)


def tensor_repr(arr: np.ndarray, *, dtype_name: str, floating: bool, show_dtype: bool, shape: tuple,
                device: str | None = None, grad_fn: str | None = None, requires_grad: bool = False,
                prefix: str = "tensor(") -> str:
    """``repr`` of a tensor holding ``arr`` with PyTorch's suffix rules."""
    indent = len(prefix)
    suffixes = []
    if device is not None:
        suffixes.append(f"device='{device}'")
    if arr.size == 0:
        if len(shape) != 1:
            suffixes.append(f"size={tuple(shape)}")
        body = "[]"
    else:
        body = array_str(arr, floating, indent)
    if show_dtype:
        suffixes.append(f"dtype={dtype_name}")
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
