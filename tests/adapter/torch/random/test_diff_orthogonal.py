"""``nn.init.orthogonal_`` computes PyTorch's matrix: its normal draws to the
bit (one contiguous rows x cols tensor, so under 16 elements the scalar path,
from 16 the Box-Muller blocks), the same reduced QR with Q's columns signed by
R's diagonal, and the stream after it unchanged.

The QR itself is LAPACK's on both sides but not the same build (PyTorch's
MKL in float32 / float64, numpy's in float64), so Q agrees to rounding; the
tolerances are the measured worst cases with a 2x margin."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

#: measured worst |msnb - PyTorch| per unit gain over SHAPES and seeds 0-2: 2.1e-6 and 5.9e-15
ATOL = {"float32": 4.5e-6, "float64": 1.2e-14}
SHAPES = [(3, 5), (4, 4), (5, 3), (16, 1), (1, 16), (6, 4), (4, 6), (3, 2, 2), (10, 3, 3), (64, 32), (32, 64),
          (300, 100), (256, 256)]


def _both(shape, dtype, seed, gain, generator=False):
    out = []
    for t in (real, mt):
        t.manual_seed(seed)
        g = t.Generator().manual_seed(seed + 100) if generator else None
        w = t.empty(*shape, dtype=getattr(t, dtype))
        t.nn.init.orthogonal_(w, gain=gain, generator=g)
        out.append((w.numpy(), t.rand(3).numpy()))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_orthogonal_matches_pytorch_to_rounding(shape, dtype):
    for seed, gain in ((0, 1.0), (2, 1.5)):
        (wr, after_r), (wm, after_m) = _both(shape, dtype, seed, gain)
        assert wm.dtype == wr.dtype and wm.shape == wr.shape
        np.testing.assert_allclose(wm, wr, rtol=0, atol=ATOL[dtype] * gain)
        np.testing.assert_array_equal(after_m, after_r)  # the draws consumed are PyTorch's


def test_orthogonal_is_orthogonal_and_uses_the_given_generator():
    (wr, after_r), (wm, after_m) = _both((7, 5), "float64", 3, 1.0, generator=True)
    np.testing.assert_allclose(wm, wr, rtol=0, atol=ATOL["float64"])
    np.testing.assert_allclose(wm.T @ wm, np.eye(5), atol=1e-12)
    np.testing.assert_array_equal(after_m, after_r)  # the global stream was not touched


@pytest.mark.parametrize("dtype,name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_orthogonal_of_a_half_tensor_raises_as_pytorch_after_the_same_draws(dtype, name):
    for t in (real, mt):
        t.manual_seed(4)
        with pytest.raises(NotImplementedError, match=f"\"geqrf_cpu\" not implemented for '{name}'"):
            t.nn.init.orthogonal_(t.empty(4, 5, dtype=getattr(t, dtype)))
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), real.get_rng_state().numpy())
