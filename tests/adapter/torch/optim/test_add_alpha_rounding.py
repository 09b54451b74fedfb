"""Optimizer updates ``p + alpha * g`` round once for float32, as PyTorch's CPU kernels do.

PyTorch's ``add(alpha=)`` is one fused multiply-add; msnb's optimizers used to
multiply and add in two kernels, which rounded twice (a few elements in a
thousand one ulp off) and launched one kernel more per parameter per step.
Float32 updates with a Python-number ``alpha`` are now MindSpore's add with
``alpha`` (one kernel, bit for bit PyTorch's); other dtypes keep two kernels."""

from __future__ import annotations

import numpy as np
import torch as real

import msnb.adapter.torch as mt

from .._kernel_log import kernel_names


def _run(lib, arrays, grads, dtype, **kw):
    ps = [lib.nn.Parameter(lib.tensor(a.astype(dtype))) for a in arrays]
    opt = lib.optim.SGD(ps, **kw)
    for step in grads:
        for p, g in zip(ps, step):
            p.grad = lib.tensor(g.astype(dtype))
        opt.step()
    return [np.asarray(p.detach().numpy()) for p in ps]


def _data(dtype=np.float32):
    rng = np.random.default_rng(3)
    shapes = [(1000,), (7, 9), ()]
    arrays = [rng.standard_normal(s) for s in shapes]
    grads = [[rng.standard_normal(s) for s in shapes] for _ in range(4)]
    return arrays, grads


def test_float32_sgd_with_momentum_and_weight_decay_is_bit_for_bit_pytorch():
    arrays, grads = _data()
    kw = dict(lr=0.013, momentum=0.9, weight_decay=1e-2)
    for m, r in zip(_run(mt, arrays, grads, np.float32, **kw), _run(real, arrays, grads, np.float32, **kw)):
        np.testing.assert_array_equal(m, r)


def test_float32_update_is_one_kernel():
    p = mt.nn.Parameter(mt.ones(5))
    opt = mt.optim.SGD([p], lr=0.5)
    p.grad = mt.ones(5)
    with kernel_names() as names:
        opt.step()
    assert names == ["add_alpha"]
    assert p.detach().numpy().tolist() == [0.5] * 5


def test_float64_keeps_its_precision():
    # MindSpore's add with alpha rounds alpha to float32 on a float64 tensor: float64 multiplies first
    arrays, grads = _data()
    kw = dict(lr=0.013, momentum=0.9, weight_decay=1e-2)
    for m, r in zip(_run(mt, arrays, grads, np.float64, **kw), _run(real, arrays, grads, np.float64, **kw)):
        np.testing.assert_allclose(m, r, rtol=1e-14, atol=1e-15)
