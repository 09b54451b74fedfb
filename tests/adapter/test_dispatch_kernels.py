"""The CPU kernels ``_dispatch`` substitutes for slow MindSpore ones must give
MindSpore's (and so PyTorch's) values bit for bit: a faster path that rounds
differently would silently change every result that goes through it."""

import numpy as np
import pytest

from msnb.adapter import _dispatch
from msnb.adapter._ms import ms

ops = ms.ops

_DTYPES = [ms.float16, ms.bfloat16, ms.float32, ms.float64, ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8,
           ms.bool_]
# rounding ties, overflow to inf and integer wrap-around, NaN, signed zeros, subnormals
_EDGES = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-45, 1e-310, 3.5e38, 1e39, -1e300, 0.5, 1.5,
          2.5, -0.5, -1.5, 255.7, 256, -129, 65504, 65520, 1e5, 2.0 ** 31, -2.0 ** 31 - 1, 2.0 ** 53 + 1, 1e20]


def _bits(t):
    if t.dtype == ms.bfloat16:
        t = ops.cast(t, ms.float32)
    a = t.asnumpy()
    return a if a.dtype == np.bool_ else a.view(np.uint8)


@pytest.mark.parametrize("src", _DTYPES, ids=str)
def test_cast_matches_mindspore_cast_bit_for_bit(src):
    vals = np.concatenate([np.random.default_rng(0).standard_normal(300) * 1e3, _EDGES])
    x = ops.cast(ms.Tensor(vals), src)
    for dst in _DTYPES:
        if dst == src:
            continue
        got, want = _dispatch._cast_cpu(x, dst), ops.cast(x, dst)
        assert got.dtype == dst and got.shape == want.shape
        np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"{src} -> {dst}")


def test_cast_keeps_shape_of_empty_and_0d_tensors():
    for shape in ((), (0, 3), (2, 1, 3)):
        x = ms.Tensor(np.ones(shape, np.float32))
        assert _dispatch._cast_cpu(x, ms.float64).shape == shape


def test_cast_of_complex_keeps_mindspore_cast():
    z = ms.Tensor(np.array([1 + 2j, -3.5j], np.complex64))
    np.testing.assert_array_equal(_dispatch._cast_cpu(z, ms.complex128).asnumpy(),
                                  ops.cast(z, ms.complex128).asnumpy())


def test_isnan_matches_mindspore_isnan():
    for dt in (ms.float16, ms.float32, ms.float64, ms.int32, ms.bool_):
        x = ops.cast(ms.Tensor(np.array([np.nan, 1.0, np.inf, -np.inf, 0.0])), dt)
        np.testing.assert_array_equal(_dispatch._isnan_cpu(x).asnumpy(), ops.isnan(x).asnumpy())


@pytest.mark.parametrize("x_shape,out_features", [((100, 784), 256), ((6, 5), 4), ((5,), 3), ((2, 3, 8), 4),
                                                  ((2, 1, 3, 7), 1), ((1, 1), 1)], ids=str)
@pytest.mark.parametrize("with_bias", [True, False])
def test_dense_matches_mindspore_dense_bit_for_bit(x_shape, out_features, with_bias):
    """The float32 linear forward runs MatMul(transpose_b) + Add instead of MindSpore's Dense
    kernel (1.0-2.4x faster); the values must be Dense's, rounding, NaN and infinities included."""
    rng = np.random.default_rng(0)
    xv = rng.standard_normal(x_shape).astype(np.float32) * 50
    xv.reshape(-1)[:3] = [np.nan, np.inf, -0.0][:xv.size]
    x = ms.Tensor(xv)
    w = ms.Tensor(rng.standard_normal((out_features, x_shape[-1])).astype(np.float32))
    b = ms.Tensor(rng.standard_normal((out_features,)).astype(np.float32)) if with_bias else None
    got, want = _dispatch._dense_cpu(x, w, b), ops.dense(x, w, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_dense_float32_does_not_run_mindspore_dense(monkeypatch):
    def refuse(*args):
        raise AssertionError("MindSpore's Dense kernel ran")
    monkeypatch.setattr(ops, "dense", refuse)
    x, w = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4, 3), np.float32))
    np.testing.assert_array_equal(_dispatch._dense_cpu(x, w).asnumpy(), np.full((2, 4), 3, np.float32))


def test_dense_of_other_dtypes_keeps_mindspore_dense():
    """float64 MatMul accumulates in another order than Dense (1 ulp apart): only float32 is rerouted."""
    rng = np.random.default_rng(1)
    x, w = (ms.Tensor(rng.standard_normal(s)) for s in ((9, 33), (5, 33)))
    np.testing.assert_array_equal(_bits(_dispatch._dense_cpu(x, w)), _bits(ops.dense(x, w)))
