"""Shared set-up: identical parameters and gradients in real torch and msnb."""

from __future__ import annotations

import numpy as np
import torch as real

import msnb.adapter.torch as mt

SHAPES = [(3, 4), (5,)]
STEPS = 10
#: float32 tolerance.  PyTorch's CPU kernels contract ``a + alpha*b`` into a
#: fused multiply-add (one rounding) where MindSpore rounds twice, so single
#: elements differ by an ulp; buffers that divide by small denominators
#: (RMSprop, Adam) carry that ulp of their largest element into the smaller
#: ones.  Hence: relative 1e-6 per element, plus 1e-6 of the tensor's scale.
RTOL, ATOL = 1e-6, 1e-7


def assert_close(m, r, msg=""):
    r = np.asarray(r)
    scale = float(np.abs(r).max()) if r.size else 0.0
    np.testing.assert_allclose(m, r, rtol=RTOL, atol=max(ATOL, RTOL * scale), err_msg=msg)


def init_arrays(seed=0, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def grad_arrays(seed=1, shapes=SHAPES, steps=STEPS):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(steps)]


def make_params(arrays):
    """The same initial values as (real torch Parameters, msnb Parameters)."""
    return ([real.nn.Parameter(real.tensor(a)) for a in arrays], [mt.nn.Parameter(mt.tensor(a)) for a in arrays])


def set_grads(rps, mps, gs):
    for rp, mp, g in zip(rps, mps, gs):
        rp.grad = None if g is None else real.tensor(g)
        mp.grad = None if g is None else mt.tensor(g)


def to_np(t):
    return np.asarray(t.detach().numpy())


def assert_params_equal(rps, mps, msg=""):
    for rp, mp in zip(rps, mps):
        assert_close(to_np(mp), to_np(rp), msg)


def assert_state_equal(ropt, mopt, msg=""):
    """Every per-parameter state entry (buffers and ``step``) equals PyTorch's."""
    for group_r, group_m in zip(ropt.param_groups, mopt.param_groups):
        for rp, mp in zip(group_r["params"], group_m["params"]):
            rs, ms_ = ropt.state.get(rp, {}), mopt.state.get(mp, {})
            assert sorted(rs) == sorted(ms_), (sorted(rs), sorted(ms_))
            for k, v in rs.items():
                if isinstance(v, real.Tensor):
                    assert_close(to_np(ms_[k]), to_np(v), f"{msg} {k}")
                    assert str(ms_[k].dtype) == str(v.dtype), (k, ms_[k].dtype, v.dtype)
                else:
                    assert ms_[k] == v, (k, ms_[k], v)


def torch_state_dict_to_msnb(sd):
    """A real-torch optimizer state dict with every tensor converted through numpy."""
    def conv(v):
        if isinstance(v, real.Tensor):
            return mt.tensor(v.detach().numpy())
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, list):
            return [conv(x) for x in v]
        return v
    return {"state": {k: conv(v) for k, v in sd["state"].items()},
            "param_groups": [dict(g) for g in sd["param_groups"]]}
