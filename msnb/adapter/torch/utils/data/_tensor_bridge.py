"""The few adapter-tensor operations ``torch.utils.data`` needs, in one place.

Worker processes are forked; MindSpore kernels must not run in a forked child
(they hang), so workers move samples as numpy (``to_numpy_tree``) and the main
process rebuilds adapter tensors (``from_numpy_tree``)."""

from __future__ import annotations

import collections.abc

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from ..._ops.creation import tensor as _tensor

__all__ = ["to_tensor", "is_tensor", "stack", "NumpyTensor", "to_numpy_tree", "from_numpy_tree"]


def is_tensor(x):
    import mindspore as ms
    return isinstance(x, ms.Tensor)


def to_tensor(arr):
    return _tensor(np.array(arr, copy=True))


def stack(tensors):
    import msnb.adapter.torch as torch
    return torch.stack(tensors, 0)


class NumpyTensor:
    """An adapter tensor in transit from a worker: its data as numpy plus dtype name."""

    __slots__ = ("arr", "dtype")

    def __init__(self, arr, dtype):
        self.arr, self.dtype = arr, dtype


def to_numpy_tree(x):
    if is_tensor(x):
        dt = D.to_torch_dtype(x.dtype)
        if dt is D.bfloat16:
            raise TypeError("msnb DataLoader workers cannot move bfloat16 tensors; return float32 samples")
        return NumpyTensor(np.array(x.asnumpy(), copy=True), dt._name)
    if isinstance(x, (str, bytes)):
        return x
    if isinstance(x, collections.abc.Mapping):
        try:
            return type(x)({k: to_numpy_tree(v) for k, v in x.items()})
        except TypeError:
            return {k: to_numpy_tree(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(to_numpy_tree(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(to_numpy_tree(v) for v in x)
    return x


def from_numpy_tree(x):
    if isinstance(x, NumpyTensor):
        t = _tensor(x.arr)
        return t
    if isinstance(x, (str, bytes)):
        return x
    if isinstance(x, collections.abc.Mapping):
        try:
            return type(x)({k: from_numpy_tree(v) for k, v in x.items()})
        except TypeError:
            return {k: from_numpy_tree(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(from_numpy_tree(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(from_numpy_tree(v) for v in x)
    return x
