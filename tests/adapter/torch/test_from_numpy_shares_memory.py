"""``torch.from_numpy`` shares memory with its array, as in PyTorch: code that
fills a numpy buffer and reads the tensor (or updates the tensor in place and
reads the array) gets the same numbers under msnb as under PyTorch."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


def _script(torch, arr):
    t = torch.from_numpy(arr)
    arr[0] = 5                     # a write to the array is seen by the tensor
    seen = t.clone()
    t[1] = 7                       # item assignment reaches the array
    t.add_(1)                      # so do in-place ops
    t.mul_(2)
    arr[2] = -1                    # and the array still reaches the tensor afterwards
    t[1:].zero_()                  # an in-place op on a view writes through the base
    return seen, t.clone(), arr.copy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_writes_either_way_are_seen_as_in_pytorch(dtype):
    expected = _script(real, np.arange(4, dtype=dtype))
    got = _script(mt, np.arange(4, dtype=dtype))
    for e, g in zip(expected, got):
        e = e.numpy() if hasattr(e, "numpy") else e
        g = g.numpy() if hasattr(g, "numpy") else g
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype


def test_numpy_of_the_tensor_is_the_same_memory():
    a = np.zeros((2, 3), dtype=np.float32)
    t = mt.from_numpy(a)
    assert np.shares_memory(t.numpy(), a)
    mt.nn.init.constant_(t, 3.0)
    assert (a == 3.0).all()


def test_copies_do_not_write_back():
    a = np.arange(3, dtype=np.float32)
    t = mt.from_numpy(a)
    t.clone().add_(1)
    t.float().add_(0)  # same dtype: PyTorch returns the tensor itself
    t.double().add_(1)
    np.testing.assert_array_equal(a, [0, 1, 2])


def test_non_contiguous_array_is_copied_with_pytorch_values():
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    view = base[:, ::2]
    np.testing.assert_array_equal(mt.from_numpy(view).numpy(), real.from_numpy(view).numpy())


def test_non_arrays_are_refused_like_pytorch():
    with pytest.raises(TypeError):
        real.from_numpy([1, 2])
    with pytest.raises(TypeError):
        mt.from_numpy([1, 2])
