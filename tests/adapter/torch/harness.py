"""Differential harness: run one function through real PyTorch and through
msnb's adapter on the same inputs, compare values, dtypes, shapes and grads.

Real torch is the oracle (tinygrad's ``helper_test_op`` pattern)."""

from __future__ import annotations

import numpy as np
import torch as real

import msnb.adapter.torch as mt

__all__ = ["compare", "real", "mt", "COVERED"]

#: qualified names exercised by differential tests (reported by the suite)
COVERED: set[str] = set()


def _to(lib, arr, requires_grad):
    t = lib.tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _np(x):
    if hasattr(x, "detach"):
        x = x.detach()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def compare(fn, *arrays, grad=True, rtol=1e-5, atol=1e-6, names=()):
    """Run ``fn(lib, *tensors)`` in both libraries; assert equal outputs and grads."""
    COVERED.update(names)
    rg = [grad and np.asarray(a).dtype.kind == "f" for a in arrays]
    rin = [_to(real, a, r) for a, r in zip(arrays, rg)]
    min_ = [_to(mt, a, r) for a, r in zip(arrays, rg)]
    rout = fn(real, *rin)
    mout = fn(mt, *min_)
    routs = rout if isinstance(rout, (tuple, list)) else (rout,)
    mouts = mout if isinstance(mout, (tuple, list)) else (mout,)
    assert len(routs) == len(mouts)
    for r, m in zip(routs, mouts):
        assert tuple(r.shape) == tuple(m.shape), (r.shape, m.shape)
        assert str(r.dtype) == str(m.dtype), (r.dtype, m.dtype)
        np.testing.assert_allclose(_np(m).astype(np.float64), _np(r).astype(np.float64), rtol=rtol, atol=atol)
    if any(rg):
        seed = np.random.default_rng(0)
        ws = [seed.standard_normal(tuple(r.shape)).astype(np.float32) for r in routs if r.dtype.is_floating_point]
        rl = sum((r * real.tensor(w)).sum() for r, w in zip([r for r in routs if r.dtype.is_floating_point], ws))
        ml = sum((m * mt.tensor(w)).sum() for m, w in zip([m for m in mouts if m.dtype.is_floating_point], ws))
        if hasattr(rl, "backward") and rl.requires_grad:
            rl.backward()
            ml.backward()
            for ri, mi, r in zip(rin, min_, rg):
                if r:
                    if ri.grad is None:
                        assert mi.grad is None or np.allclose(_np(mi.grad), 0)
                        continue
                    assert mi.grad is not None, "msnb produced no gradient"
                    np.testing.assert_allclose(_np(mi.grad), _np(ri.grad), rtol=max(rtol, 1e-4), atol=max(atol, 1e-5))
    return mout
