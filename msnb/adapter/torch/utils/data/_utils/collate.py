"""``default_collate`` / ``default_convert`` with PyTorch's rules, building adapter tensors."""

from __future__ import annotations

import collections.abc

import numpy as np

from .... import _ops  # noqa: F401 - make sure the adapter is initialised
from .._tensor_bridge import to_tensor, is_tensor, stack

__all__ = ["default_collate", "default_convert"]

_STR = (str, bytes)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data):
    """msnb implementation of ``torch.utils.data.default_convert`` (numpy -> tensors, recursively)."""
    if is_tensor(data):
        return data
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "OSUV":
            return data
        return to_tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "OSUV":
        return to_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, _STR):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """msnb implementation of ``torch.utils.data.default_collate``.

    Tensors and numpy arrays are stacked; Python ints become int64 tensors and
    floats float64 tensors (as in PyTorch); strings stay a list; mappings,
    namedtuples and sequences are collated field by field."""
    elem = batch[0]
    if is_tensor(elem):
        return stack(list(batch))
    if isinstance(elem, np.ndarray) or (isinstance(elem, np.generic) and not isinstance(elem, (np.str_,
                                                                                           np.bytes_))):
        if elem.dtype.kind in "OSUV":
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                            f"lists; found {elem.dtype}")
        return stack([to_tensor(np.asarray(b)) for b in batch])
    if isinstance(elem, bool):
        return to_tensor(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, float):
        return to_tensor(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, int):
        return to_tensor(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, _STR):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            return type(elem)(out)
        except TypeError:
            return out
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        n = len(next(it))
        if not all(len(e) == n for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        try:
            return type(elem)([default_collate(s) for s in transposed])
        except TypeError:
            return [default_collate(s) for s in transposed]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")
