"""MindSpore's CPU TensorScatterElements(reduction="add") races on repeated indices and now and
then drops updates; every scatter_add, index_add and gather gradient goes through ``K``'s CPU
scatter, so it must add every update every time, along any axis and for any index shape."""

import numpy as np
import pytest

from msnb.adapter import _dispatch
from msnb.adapter._ms import ms


def _reference(x, axis, idx, upd):
    out = x.astype(np.float64) if x.dtype != np.bool_ else x.astype(np.int64)
    for pos in np.ndindex(*idx.shape):
        target = list(pos)
        target[axis] = idx[pos]
        out[tuple(target)] += upd[pos]
    return out


def test_many_repeated_indices_never_lose_an_update():
    """100,000 updates into 5 slots: the plain kernel was wrong in ~8% of such runs here."""
    rng = np.random.default_rng(1)
    for _ in range(30):
        idx = rng.integers(0, 5, (1, 100_000)).astype(np.int64)
        upd = rng.standard_normal((1, 100_000)).astype(np.float32)
        want = np.zeros((1, 5))
        np.add.at(want[0], idx[0], upd[0])
        got = _dispatch._scatter_elements_cpu(ms.Tensor(np.zeros((1, 5), np.float32)), ms.Tensor(idx),
                                              ms.Tensor(upd), 1, "add").asnumpy()
        np.testing.assert_allclose(got, want, rtol=0, atol=0.05)


@pytest.mark.parametrize("shape,ishape,axis", [((4, 6), (4, 6), 0), ((4, 6), (3, 2), 1), ((3, 4, 5), (2, 7, 1), 1),
                                               ((3, 4, 5), (3, 4, 9), -1), ((7,), (20,), 0), ((2, 3), (0, 3), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.bool_])
def test_adds_like_a_serial_loop(shape, ishape, axis, dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    upd = (rng.standard_normal(ishape) * 5).astype(dtype)
    ax = axis % len(shape)
    idx = rng.integers(0, shape[ax], ishape).astype(np.int64)
    got = _dispatch._scatter_elements_cpu(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(upd), ax, "add")
    assert got.dtype == ms.Tensor(x).dtype and tuple(got.shape) == shape
    want = _reference(x, ax, idx, upd)
    if dtype is np.bool_:
        np.testing.assert_array_equal(got.asnumpy(), want != 0)
    else:
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), want, rtol=1e-5, atol=1e-5)


def test_other_reductions_and_plain_scatter_keep_mindspore_kernel():
    x, idx, upd = ms.Tensor(np.zeros((2, 3), np.float32)), ms.Tensor(np.array([[2, 0, 1]])), \
        ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    got = _dispatch._scatter_elements_cpu(x, idx, upd, 1)
    np.testing.assert_array_equal(got.asnumpy(), ms.ops.tensor_scatter_elements(x, idx, upd, 1).asnumpy())
