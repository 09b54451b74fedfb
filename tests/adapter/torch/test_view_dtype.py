"""``Tensor.view(dtype)`` against real PyTorch: the bits read as another dtype (same size: same
shape; other sizes: the last dimension scaled), PyTorch's errors, no gradient, and a true view
(writes through either tensor reach the other)."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torch._missing import NotSupportedError


def _reads(torch):
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3) - 2.5
    return [x.view(torch.int32), x.view(torch.int16), x.view(torch.uint8), x.view(torch.bfloat16),
            x.view(dtype=torch.int32), x.t().view(torch.int32), torch.tensor(3.).view(torch.int32),
            torch.tensor([1., 2.]).view(torch.complex64), torch.tensor([True, False]).view(torch.uint8),
            torch.tensor([1.5, -2.0], dtype=torch.float64).view(torch.int64),
            torch.tensor([[1, 2, 3, 4]], dtype=torch.int16).view(torch.float32),
            torch.tensor([1.5, -2.0], dtype=torch.bfloat16).view(torch.int16),
            torch.tensor([16320, 3], dtype=torch.int16).view(torch.bfloat16)]


def _np(t):
    return (t.float() if str(t.dtype) == "torch.bfloat16" else t).numpy()


@pytest.mark.parametrize("i", range(13))
def test_bits_read_as_another_dtype(i):
    r, m = _reads(real)[i], _reads(mt)[i]
    assert (str(m.dtype), tuple(m.shape)) == (str(r.dtype), tuple(r.shape))
    np.testing.assert_array_equal(_np(m), _np(r))


@pytest.mark.parametrize("fn", [lambda t: t.arange(6.).reshape(2, 3).view(t.float64),
                                lambda t: t.tensor(1.).view(t.int16)], ids=["size-1", "0-d"])
def test_pytorch_errors(fn):
    with pytest.raises(RuntimeError) as r:
        fn(real)
    with pytest.raises(RuntimeError) as m:
        fn(mt)
    assert str(m.value) == str(r.value)


def test_not_differentiable_and_a_true_view():
    for torch in (real, mt):
        assert not torch.ones(2, 4, requires_grad=True).view(torch.int32).requires_grad
    seen = []
    for torch in (real, mt):
        v = torch.zeros(4)
        bits = v.view(torch.int32)
        bits[1] = 1065353216  # the bits of 1.0
        bits.add_(1)
        first = v.clone()
        v.fill_(2.0)
        seen.append((first.numpy().copy(), bits.numpy().copy()))
    for a, b in zip(*seen):
        np.testing.assert_array_equal(b, a)


def test_non_contiguous_with_other_element_size_is_refused_clearly():
    with pytest.raises(NotSupportedError, match="not supported by msnb yet"):
        mt.arange(6.).reshape(2, 3).t().view(mt.int16)
