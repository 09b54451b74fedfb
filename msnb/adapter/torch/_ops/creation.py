"""Tensor creation: ``torch.tensor``, ``zeros``, ``arange``, ``eye`` ..."""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._core import K, TensorPy, wrap
from .. import _core
from ...graph import capture as _graph_capture
from .._device import refuse_meta

__all__ = ["tensor", "as_tensor", "from_numpy", "asarray", "zeros", "ones", "full", "empty",
           "zeros_like", "ones_like", "full_like", "empty_like", "arange", "range", "linspace",
           "logspace", "eye", "scalar_tensor", "size_args",
           "triu_indices", "from_ms", "tril_indices"]


def size_args(size):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size)``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, TensorPy):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"size must be a tuple of ints, but got {type(s).__name__}")
        out.append(int(s))
    return tuple(out)


def _np_default(data, dtype):
    """numpy array from Python data, with torch's dtype inference."""
    from .._tensor import Tensor

    if isinstance(data, Tensor):
        arr = data.numpy()
    elif isinstance(data, (list, tuple)) and any(isinstance(e, Tensor) for e in _flat(data)):
        parts = [_np_default(e, None) for e in data]
        dt = parts[0][1]
        for _, d in parts[1:]:
            dt = D.promote_types(dt, d)
        arr = np.array([a for a, _ in parts]).astype(dt.numpy, copy=False)
        if dtype is None:
            return arr, dt
    else:
        arr = np.asarray(data)
        if not isinstance(data, (np.ndarray, np.generic)):
            _check_int_literals(arr, dtype)
    if dtype is not None:
        d = D.to_torch_dtype(dtype)
        return arr.astype(np.float32 if d is D.bfloat16 else d.numpy, copy=False), d
    is_np = isinstance(data, (np.ndarray, np.generic))  # numpy data keeps its dtype
    if arr.dtype.kind == "f":
        d = D.get_default_dtype() if not is_np else D.to_torch_dtype(arr.dtype)
        return arr.astype(d.numpy, copy=False), d
    if arr.dtype.kind in "iu" and not is_np:
        return arr.astype(np.int64), D.int64
    if arr.dtype.kind == "c" and not is_np:
        return arr.astype(np.complex64), D.complex64
    if arr.dtype == np.object_:
        raise TypeError(f"can't convert object of type {type(data).__name__} to a tensor")
    if arr.dtype.kind in "US":
        raise TypeError("new(): invalid data type 'str'")
    return arr, D.to_torch_dtype(arr.dtype)


def _check_int_literals(arr, dtype):
    """Python integers that do not fit raise as in PyTorch (numpy would wrap them)."""
    d = None if dtype is None else D.to_torch_dtype(dtype)
    if d is not None and (d.is_floating_point or d.is_complex or d is D.bool):
        return
    if arr.dtype == np.uint64 or (arr.dtype == np.object_ and any(isinstance(v, int) and not -2**63 <= v < 2**63
                                                                 for v in arr.reshape(-1).tolist())):
        raise ValueError("Overflow when unpacking long long")
    if d is None or arr.dtype.kind not in "iu" or arr.size == 0:
        return
    info = np.iinfo(d.numpy)
    lo = -int(info.max) if info.min == 0 else int(info.min)  # unsigned: PyTorch accepts -max..max
    if int(arr.min()) < lo or int(arr.max()) > int(info.max):
        raise RuntimeError(f"value cannot be converted to type {d._name} without overflow")


def _flat(x):
    if isinstance(x, (list, tuple)):
        for e in x:
            yield from _flat(e)
    else:
        yield x


def from_ms(x):
    return wrap(x)


def _finish(arr, d, requires_grad=False):
    arr = np.asarray(arr)
    t = ms_from_numpy(arr if arr.flags.c_contiguous else arr.copy())
    if d is D.bfloat16:
        t = K.cast(t, D.bfloat16)
    t = wrap(t)
    if requires_grad:
        t.requires_grad_(True)
    return t


def ms_from_numpy(arr):
    # MindSpore's constructor copies, so the tensor owns its memory.
    return _core.ms.Tensor(arr)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """msnb implementation of ``torch.tensor``: always copies ``data``."""
    from .._tensor import Tensor
    if device is not None:
        refuse_meta(device)

    if isinstance(data, Tensor):
        out = data.detach().clone()
        if dtype is not None:
            out = out.to(dtype)
        if requires_grad:
            out.requires_grad_(True)
        return out
    arr, d = _np_default(data, dtype)
    if arr.size > 1:
        _graph_capture.host_data()
    return _finish(arr, d, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """msnb implementation of ``torch.as_tensor``: no copy for a tensor of the right dtype."""
    from .._tensor import Tensor

    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype=dtype)


asarray = as_tensor


def from_numpy(arr):
    """msnb implementation of ``torch.from_numpy``: the tensor shares the
    array's memory, so writes to either are seen by the other, as in PyTorch.

    Partial: a non-contiguous array is copied (MindSpore tensors are dense);
    views taken of the tensor see later writes to the array only after an
    in-place op through msnb."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    d = D.to_torch_dtype(arr.dtype)
    if arr.size > 1:
        _graph_capture.host_data()
    if arr.flags.c_contiguous and arr.flags.writeable and arr.dtype.kind in "biuf":
        return _core.share_numpy(arr, d)
    return _finish(arr, d)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return tensor(s, dtype=dtype or D.get_default_dtype(), requires_grad=requires_grad)


def _fill(size, value, dtype, requires_grad):
    d = D.to_torch_dtype(dtype) if dtype is not None else (
        D.get_default_dtype() if isinstance(value, float) or value is None else D.result_type(value))
    if value is None:
        value = 0
    arr = np.full(size, value, dtype=np.float32 if d is D.bfloat16 else d.numpy)
    return _finish(arr, d, requires_grad)


def sizes_or_keyword(args, kw, name, fn):
    """Varargs sizes, or PyTorch's keyword spelling of them (``x.view(size=(2, 3))``)."""
    if name in kw:
        if args:
            raise TypeError(f"{fn}() got multiple values for argument '{name}'")
        args = (kw.pop(name),)
    if kw:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{next(iter(kw))}'")
    return args


def size_keyword(fn):
    """``torch.zeros(size=(2, 3))``: PyTorch also takes the size as a keyword (and ``device="meta"``
    is refused, see ``_device.refuse_meta``)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*size, **kwargs):
        if kwargs.get("device") is not None:
            refuse_meta(kwargs["device"])
        if "size" in kwargs:
            if size:
                raise TypeError(f"{fn.__name__}() got multiple values for argument 'size'")
            size = (kwargs.pop("size"),)
        return fn(*size, **kwargs)
    return wrapper





@size_keyword
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """msnb implementation of ``torch.zeros``."""
    t = _fill(size_args(size), 0, dtype or D.get_default_dtype(), requires_grad)
    return _core.write_out(out, t)


@size_keyword
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """msnb implementation of ``torch.ones``."""
    t = _fill(size_args(size), 1, dtype or D.get_default_dtype(), requires_grad)
    return _core.write_out(out, t)


@size_keyword
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    """msnb implementation of ``torch.empty`` (memory is zero-filled)."""
    return zeros(*size, out=out, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.full`` (dtype inferred from ``fill_value``)."""
    refuse_meta(device)
    if isinstance(fill_value, TensorPy):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = D.bool if isinstance(fill_value, bool) else D.int64 if isinstance(fill_value, int) \
            else D.get_default_dtype()
    t = _fill(size_args((size,)), fill_value, dtype, requires_grad)
    return _core.write_out(out, t)


def _like(x, value, dtype, requires_grad):
    d = dtype if dtype is not None else x.dtype
    return _fill(tuple(x.shape), value, d, requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    refuse_meta(device)
    return _like(input, 0, dtype, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    refuse_meta(device)
    return _like(input, 1, dtype, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    refuse_meta(device)
    return _like(input, 0, dtype, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    refuse_meta(device)
    return _like(input, fill_value, dtype, requires_grad)


def _num(x):
    return x.item() if isinstance(x, TensorPy) else x


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """msnb implementation of ``torch.arange``: ``arange(5)``, ``arange(1, 5)``, ``arange(0, 1, .1)``."""
    refuse_meta(device)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0 or step != step:
        raise RuntimeError("step must be nonzero")
    if dtype is None and out is not None:
        dtype = out.dtype  # PyTorch computes in out's dtype
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, int) for v in (start, end, step)) else D.get_default_dtype()
    d = D.to_torch_dtype(dtype)
    _arange_check(start, end, step, d)
    if not d.is_floating_point and not d.is_complex:  # PyTorch computes in the (integral) dtype
        start, end, step = int(start), int(end), int(step)
    n = max(0, math.ceil((end - start) / step))
    arr = (start + np.arange(n, dtype=np.float64) * step) if d.is_floating_point else \
        np.arange(start, end, step, dtype=np.int64)
    t = _finish(arr.astype(d.numpy), d, requires_grad)
    return _core.write_out(out, t)


def _arange_check(start, end, step, d):
    """PyTorch's refusals: a step that truncates to 0 in an integral dtype (ValueError), a
    non-finite bound, bounds on the wrong side of the step's sign (RuntimeError)."""
    if not d.is_floating_point and not d.is_complex and int(step) == 0:
        raise ValueError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """msnb implementation of the deprecated ``torch.range`` (end inclusive)."""
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    d = D.to_torch_dtype(dtype) if dtype is not None else D.get_default_dtype()
    return _finish((start + np.arange(n) * step).astype(d.numpy), d, requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.linspace``."""
    _steps_check("linspace", start, end, steps)
    d = D.to_torch_dtype(dtype) if dtype is not None else D.get_default_dtype()
    arr = np.linspace(_num(start), _num(end), int(steps), dtype=np.float64)
    return _core.write_out(out, _finish(arr.astype(d.numpy), d, requires_grad))


def _steps_check(name, start, end, steps):
    """PyTorch's argument parser takes ``steps`` as an int only; a negative count is refused."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) and not (
            isinstance(steps, TensorPy) and steps.ndim == 0 and not steps.dtype.is_floating_point):
        kinds = ", ".join(type(v).__name__ if not isinstance(v, TensorPy) else "Tensor" for v in (start, end, steps))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({kinds}), but expected "
                        f"(Number start, Number end, int steps, ...)")
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    bad = [f"{what} with {v.ndim} dimension(s)" for what, v in (("start", start), ("end", end))
           if isinstance(v, TensorPy) and v.ndim != 0]
    if bad:
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {' and '.join(bad)}.")


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.logspace``."""
    _steps_check("logspace", start, end, steps)
    d = D.to_torch_dtype(dtype) if dtype is not None else D.get_default_dtype()
    arr = np.logspace(_num(start), _num(end), int(steps), base=base)
    return _finish(arr.astype(d.numpy), d, requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.eye``."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = D.to_torch_dtype(dtype) if dtype is not None else D.get_default_dtype()
    return _core.write_out(out, _finish(np.eye(n, m if m is not None else n, dtype=d.numpy), d,
                                        requires_grad))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    r, c = np.tril_indices(row, offset, col)
    return tensor(np.stack([r, c]).astype(np.int64), dtype=dtype or D.int64)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """msnb implementation of ``torch.triu_indices``."""
    r, c = np.triu_indices(row, offset, col)
    return tensor(np.stack([r, c]).astype(np.int64), dtype=dtype or D.int64)
