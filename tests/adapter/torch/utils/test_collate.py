"""default_collate / default_convert must give the shapes and dtypes real PyTorch gives."""

from __future__ import annotations

import collections

import numpy as np
import torch as real_torch
from torch.utils.data import default_collate as real_collate

import msnb.adapter.torch as torch
from msnb.adapter.torch.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


def _samples():
    rng = np.random.default_rng(0)
    return [{"img": rng.random((2, 3), dtype=np.float32), "label": i, "w": 0.5 * i, "name": f"s{i}",
             "pair": (np.int32(i), [1.0, 2.0]), "pt": Point(i, float(i))} for i in range(4)]


def _check(mine, ref):
    if isinstance(ref, real_torch.Tensor):
        assert isinstance(mine, torch.Tensor)
        assert str(mine.dtype) == str(ref.dtype) and tuple(mine.shape) == tuple(ref.shape)
        np.testing.assert_array_equal(mine.numpy(), ref.numpy())
    elif isinstance(ref, dict):
        assert list(mine) == list(ref)
        for k in ref:
            _check(mine[k], ref[k])
    elif isinstance(ref, (list, tuple)):
        assert type(mine) is type(ref) and len(mine) == len(ref)
        for a, b in zip(mine, ref):
            _check(a, b)
    else:
        assert mine == ref


def test_default_collate_matches_real_torch():
    """ints -> int64, floats -> float64, arrays stacked, strings listed, containers recursed."""
    s = _samples()
    _check(default_collate(s), real_collate(s))


def test_default_collate_stacks_adapter_tensors():
    """Adapter tensors are stacked along a new first dim."""
    out = default_collate([torch.ones(2, 3), torch.zeros(2, 3)])
    assert tuple(out.shape) == (2, 2, 3) and out.dtype is torch.float32


def test_default_convert_numpy_to_tensor():
    """default_convert turns numpy into tensors and leaves other values alone."""
    out = default_convert({"a": np.arange(3), "b": "x", "c": 1})
    assert isinstance(out["a"], torch.Tensor) and out["a"].dtype is torch.int64
    assert out["b"] == "x" and out["c"] == 1
