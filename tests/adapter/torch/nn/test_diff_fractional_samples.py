"""Differential tests of fractional max pooling's ``_random_samples`` against
real PyTorch: an unbatched input reads the first row of a larger sample
tensor, too few rows is PyTorch's RuntimeError, and a module built with
float64 samples follows ``.to(float32)`` (its buffer converts), as PyTorch's
module tests use it."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(3)
NAMES3 = registered("torch.nn.functional.fractional_max_pool3d")
NAMES2 = registered("torch.nn.functional.fractional_max_pool2d")
U3 = rng.random((2, 4, 3)).astype(np.float32)
U2 = rng.random((2, 3, 2)).astype(np.float32)
CASES = [
    # the samples are not differentiable (PyTorch refuses requires_grad on them): constants here
    case("fmp3d_unbatched_reads_first_row", NAMES3,
         lambda t, x, u=U3: t.nn.functional.fractional_max_pool3d(x, 2, output_ratio=0.5, _random_samples=t.tensor(u)),
         rng.random((4, 5, 5, 5)).astype(np.float32)),
    case("fmp2d_unbatched_reads_first_row", NAMES2,
         lambda t, x, u=U2: t.nn.functional.fractional_max_pool2d(x, (2, 3), output_size=(4, 3),
                                                                   _random_samples=t.tensor(u)),
         rng.random((3, 7, 6)).astype(np.float32)),
    case("fmp3d_too_few_rows_raises", NAMES3,
         lambda t, x, u: t.nn.functional.fractional_max_pool3d(x, 2, output_ratio=0.5, _random_samples=u),
         rng.random((2, 4, 5, 5, 5)).astype(np.float32), rng.random((1, 4, 3)).astype(np.float32), kind="raises"),
    case("fmp2d_dtype_mismatch_raises", NAMES2,
         lambda t, x, u: t.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), _random_samples=u),
         rng.random((1, 3, 5, 7)).astype(np.float32), rng.random((1, 3, 2)), kind="raises"),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_fractional_samples(c):
    run_case(c)


@pytest.mark.parametrize("cls,shape,n", [("FractionalMaxPool2d", (1, 3, 5, 7), 2),
                                         ("FractionalMaxPool3d", (2, 4, 5, 5, 5), 3)])
def test_module_float64_samples_follow_to(cls, shape, n):
    """Built with float64 samples, the module refuses float32 input until ``.to(float32)``."""
    from ..harness import mt, real
    u = rng.random((shape[0], shape[1], n))
    x = rng.random(shape).astype(np.float32)
    outs = []
    for t in (real, mt):
        m = getattr(t.nn, cls)(2, output_ratio=0.5, _random_samples=t.tensor(u))
        with pytest.raises(RuntimeError):
            m(t.tensor(x))
        m = m.to(t.float32)
        assert m._random_samples.dtype == t.float32
        outs.append(m(t.tensor(x)).numpy())
    np.testing.assert_array_equal(outs[1], outs[0])
