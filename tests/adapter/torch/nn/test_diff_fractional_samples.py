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


def _fmp(n):
    return "fractional_max_pool2d" if n == 2 else "fractional_max_pool3d"


# samples outside [0, 1) (OpInfo's make_tensor draws them): PyTorch truncates toward zero in the
# samples' dtype, so its window starts differ from a floor in float64
WIDE2 = (rng.random((2, 3, 2)) * 12 - 6).astype(np.float32)
WIDE3 = (rng.random((2, 3, 3)) * 12 - 6)
SHAPED = [
    case("fmp2d_wide_samples", NAMES2,
         lambda t, x, u=WIDE2: t.nn.functional.fractional_max_pool2d(x, (1, 2), output_ratio=(0.5, 0.5),
                                                                      return_indices=True, _random_samples=t.tensor(u)),
         rng.standard_normal((2, 3, 16, 16)).astype(np.float32)),
    case("fmp3d_wide_samples_float64", NAMES3,
         lambda t, x, u=WIDE3: t.nn.functional.fractional_max_pool3d(x, 2, output_size=(3, 4, 2),
                                                                      _random_samples=t.tensor(u)),
         rng.standard_normal((2, 3, 7, 9, 6))),
    case("fmp3d_empty_batch", NAMES3,
         lambda t, x: t.nn.functional.fractional_max_pool3d(x, (2, 2, 1), output_size=2, return_indices=True),
         np.zeros((0, 1, 4, 5, 4), np.float32)),
    case("fmp2d_scalar_ratio_is_type_error", NAMES2,
         lambda t, x: t.nn.functional.fractional_max_pool2d(x, 2, output_ratio=0.5),
         rng.random((1, 2, 8, 8)).astype(np.float32), kind="raises"),
    case("fmp2d_three_ratios_is_value_error", NAMES2,
         lambda t, x: t.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5)),
         rng.random((1, 2, 8, 8)).astype(np.float32), kind="raises"),
    case("fmp3d_one_ratio_is_index_error", NAMES3,
         lambda t, x: t.nn.functional.fractional_max_pool3d(x, 2, output_ratio=(0.5,)),
         rng.random((1, 2, 8, 8, 8)).astype(np.float32), kind="raises"),
    case("fmp2d_one_kernel_size_is_runtime_error", NAMES2,
         lambda t, x: t.nn.functional.fractional_max_pool2d(x, (2,), output_size=3),
         rng.random((1, 2, 8, 8)).astype(np.float32), kind="raises"),
    case("fmp3d_four_output_sizes_is_runtime_error", NAMES3,
         lambda t, x: t.nn.functional.fractional_max_pool3d(x, 2, output_size=(3, 3, 3, 3)),
         rng.random((1, 2, 8, 8, 8)).astype(np.float32), kind="raises"),
]


@pytest.mark.parametrize("c", SHAPED, ids=[c.id for c in SHAPED])
def test_fractional_shapes_and_errors(c):
    run_case(c)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("kw", [{"output_ratio": 0.5}, {"output_ratio": (0.5, 0.75, 0.6)[:3]},
                                {"output_size": 3}])
def test_function_and_module_forms_agree_with_torch(n, kw):
    """The function (where PyTorch accepts the arguments) and the module (which pairs a scalar
    ratio) give PyTorch's values and indices for the same ``_random_samples``; the 2-d function
    refuses a scalar ratio with PyTorch's TypeError."""
    from ..harness import mt, real
    kw = dict(kw)
    if "output_ratio" in kw and isinstance(kw["output_ratio"], tuple):
        kw["output_ratio"] = kw["output_ratio"][:n]
    x = rng.standard_normal((2, 3) + (8,) * n).astype(np.float32)
    u = rng.random((2, 3, n)).astype(np.float32)
    res = []
    for t in (real, mt):
        f = getattr(t.nn.functional, _fmp(n))
        m = getattr(t.nn, f"FractionalMaxPool{n}d")(2, return_indices=True, _random_samples=t.tensor(u), **kw)
        outs = [v.numpy() for v in m(t.tensor(x))]
        try:
            outs += [v.numpy() for v in f(t.tensor(x), 2, return_indices=True, _random_samples=t.tensor(u), **kw)]
        except TypeError as e:
            outs.append(type(e))
        res.append(outs)
    assert len(res[0]) == len(res[1])
    for r, m in zip(*res):
        if isinstance(r, type):
            assert m is r
        else:
            np.testing.assert_array_equal(m, r)


@pytest.mark.parametrize("kw", [{"output_ratio": 1.5}, {}, {"output_size": 3, "output_ratio": 0.5}])
def test_module_argument_errors(kw):
    from ..harness import compare_behaviour
    compare_behaviour(lambda t: t.nn.FractionalMaxPool2d(2, **kw))
