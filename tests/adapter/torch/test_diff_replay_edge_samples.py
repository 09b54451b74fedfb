"""Samples of PyTorch's OpInfo database beyond the suite's first two that msnb got wrong
(found by the full replay, ``tools/opinfo_report.py``): ``diff`` with ``n=0`` returns the
input unchanged, leaving ``prepend`` / ``append`` out (msnb concatenated them), and
``group_norm`` / ``native_group_norm`` of a batch of 0 (msnb's ``reshape(0, G, -1)`` was
ambiguous and raised)."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import compare

RNG = np.random.default_rng(7)
X = RNG.standard_normal((5, 5)).astype(np.float32)


@pytest.mark.parametrize("prepend,append", [((1, 5), (2, 5)), (None, (2, 5)), ((3, 5), None)])
def test_diff_of_order_zero_ignores_prepend_and_append(prepend, append):
    arrays = [X] + [RNG.standard_normal(s).astype(np.float32) for s in (prepend, append) if s is not None]

    def fn(t, x, *rest):
        it = iter(rest)
        kw = {k: next(it) for k, s in (("prepend", prepend), ("append", append)) if s is not None}
        return t.diff(x, n=0, dim=0, **kw), t.diff(x, n=1, dim=0, **kw)
    compare(fn, *arrays)


@pytest.mark.parametrize("shape", [(0, 6, 3), (0, 6), (0, 6, 2, 2)])
def test_group_norm_of_an_empty_batch(shape):
    compare(lambda t, x, w, b: t.nn.functional.group_norm(x, 3, w, b), np.zeros(shape, np.float32),
            np.ones(6, np.float32), np.zeros(6, np.float32))


def test_native_group_norm_of_an_empty_batch():
    compare(lambda t, x, w, b: t.native_group_norm(x, w, b, 0, 6, 4, 2, 1e-5), np.zeros((0, 6, 4), np.float32),
            np.ones(6, np.float32), np.zeros(6, np.float32))


ADD_PRODUCTS = {
    "addmm": lambda t, a, b, beta, alpha: t.addmm(a[0], b[0], b[0], beta=beta, alpha=alpha),
    "addmv": lambda t, a, b, beta, alpha: t.addmv(a[0, 0], b[0], b[0, 0], beta=beta, alpha=alpha),
    "addbmm": lambda t, a, b, beta, alpha: t.addbmm(a[0], b, b, beta=beta, alpha=alpha),
    "baddbmm": lambda t, a, b, beta, alpha: t.baddbmm(a, b, b, beta=beta, alpha=alpha),
    "addr": lambda t, a, b, beta, alpha: t.addr(a[0], b[0, 0], b[0, 0], beta=beta, alpha=alpha),
}


@pytest.mark.parametrize("op", list(ADD_PRODUCTS))
@pytest.mark.parametrize("beta,alpha", [(0.2, 0.6), (1, 2.9), (-1.7, 2.9)])
def test_integer_add_products_with_float_scalars(op, beta, alpha):
    """On int64 tensors PyTorch truncates float ``beta`` / ``alpha`` and keeps int64 (addr refuses
    them); msnb computed in float32."""
    from .harness import compare_raises, mt, real
    a = np.arange(2 * 2 * 2).reshape(2, 2, 2) + 10
    b = np.arange(8).reshape(2, 2, 2) - 3
    if op == "addr":
        compare_raises(lambda t: ADD_PRODUCTS[op](t, t.tensor(a), t.tensor(b), beta, alpha))
        return
    r = ADD_PRODUCTS[op](real, real.tensor(a), real.tensor(b), beta, alpha)
    m = ADD_PRODUCTS[op](mt, mt.tensor(a), mt.tensor(b), beta, alpha)
    assert str(m.dtype) == str(r.dtype) == "torch.int64" and m.tolist() == r.tolist()


@pytest.mark.parametrize("kw", [{"size": (2, 3, 1)}, {"scale_factor": 0.5}, {"size": 3}])
def test_interpolate_area_on_5d_input(kw):
    """``interpolate(mode='area')`` of a 5-D input is adaptive average pooling in 3-D, as in
    PyTorch (msnb raised NotImplementedError: 8 of 22 OpInfo samples)."""
    compare(lambda t, x: t.nn.functional.interpolate(x, mode="area", **kw),
            RNG.standard_normal((1, 2, 4, 6, 3)).astype(np.float32))
