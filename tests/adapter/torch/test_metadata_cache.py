"""Recorded dtypes and shapes never lie.

Adapter ops record their result's dtype and shape on it (so reading them does
not wait for MindSpore's asynchronous kernel).  Every check here compares
``.dtype``/``.shape`` (and ``ndim``/``dim()``/``numel()``/``size()``) with
MindSpore's own getters and with real torch running the same program, after
promoting chains, in-place writes that change dtype or shape, and alias
updates."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter._ms import TensorPy
from msnb.adapter.torch import _dtype as D

_ms_shape = TensorPy.shape.__get__
_ms_dtype = TensorPy.dtype.__get__


def _raw(t):
    """dtype and shape as MindSpore's getters report them (waits for the kernel)."""
    return D.to_torch_dtype(_ms_dtype(t)), tuple(_ms_shape(t))


def _same_meta(m, r=None):
    """``m``'s metadata matches MindSpore's getters and, if given, torch tensor ``r``."""
    dt, sh = _raw(m)
    assert m.dtype is dt, (m.dtype, dt)
    assert tuple(m.shape) == sh and m.size() == sh, (m.shape, sh)
    assert m.ndim == m.dim() == len(sh)
    assert m.numel() == int(np.prod(sh, dtype=np.int64))
    if sh:
        assert m.size(-1) == sh[-1] and len(m) == sh[0]
    if r is not None:
        assert str(m.dtype) == str(r.dtype), (m.dtype, r.dtype)
        assert tuple(m.shape) == tuple(r.shape), (m.shape, r.shape)


def _same(m, r):
    _same_meta(m, r)
    if r.dtype is real.bfloat16:
        return
    a, b = m.numpy(force=True), r.detach().numpy()
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-3, atol=1e-3)


def _both(fn):
    """``fn(lib)`` -> list of tensors, run in both libraries and compared pairwise."""
    ms_out, rt_out = fn(mt), fn(real)
    assert len(ms_out) == len(rt_out)
    for m, r in zip(ms_out, rt_out):
        _same(m, r)


# --- ops record metadata (so a chain of them never waits) -----------------------------

def test_pointwise_results_are_recorded():
    x = mt.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = x * 2.0
    for t in (y, y + 1.0, y.exp(), y - x, (y * x).abs(), y.sqrt(), y / 2.0, -y, y.relu(), y > 1, y.float(),
              y.long(), mt.where(y > 2, y, 0.0), mt.maximum(y, x)):
        assert t.__dict__.get("_dt") is not None and t.__dict__.get("_sh") is not None
        _same_meta(t)


def test_unrecorded_results_fall_back_to_mindspore():
    x = mt.tensor([[1.0, 2.0, 3.0]])
    assert "_dt" not in x.__dict__
    _same_meta(x)
    v = x.reshape(3)
    _same_meta(v)


# --- promoting chains ---------------------------------------------------------------

def test_int_float_chain_promotes_like_torch():
    def prog(t):
        i = t.tensor([[1, 2, 3], [4, 5, 6]])            # int64
        i32 = t.tensor([1, 2, 3], dtype=t.int32)
        f = t.tensor([0.5, 1.5, 2.5])
        out = [i + 1, i * 2, i - i32, i + i32, i + f, i / 2, i // 2, i32 / i32, i * 1.5, i32 + True]
        out += [(i + f).exp(), -(i32 * 2), (i - 4).abs(), (i - 4).relu(), (i32 - 2).sign(), i.float() + i32]
        out += [t.maximum(i, i32), t.minimum(i32, f), t.where(i > 2, i, f), t.where(i > 2, i32, 7)]
        return out
    _both(prog)


def test_half_and_double_chain_promotes_like_torch():
    def prog(t):
        h = t.tensor([1.0, 2.0, 4.0], dtype=t.float16)
        f = t.tensor([[0.5], [0.25]])
        d = t.tensor([3.0, 1.0, 2.0], dtype=t.float64)
        out = [h + f, h * 2.5, h + 1, (h * 2).sqrt(), h + d, d * 0.1, d + f, h + t.tensor(2.0), h.exp() - h]
        out += [f + t.tensor(1.0, dtype=t.float64), h.double(), d.half(), (h > 1.5), h / h, t.tensor(3) * h]
        return out
    _both(prog)


def test_bool_chain_promotes_like_torch():
    def prog(t):
        a = t.tensor([True, False, True])
        b = t.tensor([[True], [False]])
        x = t.tensor([1.0, -2.0, 3.0])
        m = x > 0
        out = [a & b, a | b, a ^ a, ~a, a + 1, a * 2.5, a + a, a * a, m.logical_not(), m & a, m.float() * x]
        out += [t.logical_and(m, b), t.logical_or(x, t.tensor(0.0)), a == b, x.eq(1.0), (x < 0).long().sum(),
                a.int() - 1]
        return out
    _both(prog)


def test_uint8_and_small_ints_promote_like_torch():
    def prog(t):
        u = t.tensor([1, 2, 250], dtype=t.uint8)
        s = t.tensor([-1, 2, 3], dtype=t.int8)
        w = t.tensor([100, 200, 300], dtype=t.int16)
        return [u + s, u + 1, s * 2, w - s, u.float() / 3, -s, s.abs(), u > s, t.maximum(u, s), w // 7]
    _both(prog)


def test_broadcasting_shapes_match_torch():
    def prog(t):
        a = t.ones(2, 1, 3) * 2
        b = t.ones(4, 1) + 1
        c = t.ones(3)
        return [a + b, a * c, (a + b) > c, t.where(b > 0, a, c), t.maximum(a, b), a + t.tensor(1.0), c - a]
    _both(prog)


def test_broadcast_error_is_torchs_runtime_error():
    for t in (real, mt):
        with pytest.raises(RuntimeError):
            t.ones(2, 3) + t.ones(4)
        with pytest.raises(RuntimeError):
            t.ones(2, 3) == t.ones(2, 2)


def test_reductions_match_torch():
    def prog(t):
        x = t.arange(24.0).reshape(2, 3, 4) * 0.5
        i = t.tensor([[1, 2], [3, 4]]) * 1
        h = x.half()
        out = [x.sum(), x.sum(0), x.sum((0, 2)), x.sum(-1, keepdim=True), x.mean(), x.mean(1), x.mean((0, 1), True)]
        out += [i.sum(), i.sum(1), (i > 1).sum(0), h.sum(2), h.mean(0), x.sum(dim=[]), x.sum(0).sum(),
                t.tensor(2.5).sum()]
        out += [x - x.mean(-1, keepdim=True), (x * x).sum(1).sqrt(), x.double().mean(2)]
        return out
    _both(prog)


def test_nan_propagating_maximum_keeps_metadata():
    def prog(t):
        a = t.tensor([[1.0, float("nan")], [3.0, 0.0]]) * 1
        b = t.tensor([2.0, 2.0]) + 0
        return [t.maximum(a, b), t.minimum(b, a), a.clamp(0.5, 2.5), a.clamp(min=1.0)]
    _both(prog)


# --- in-place writes that change dtype or shape ----------------------------------------

def test_out_with_resize():
    def prog(t):
        a, b = t.tensor([1.0, 2.0, 3.0]) * 1, t.tensor([[1.0], [2.0]]) * 1
        o = t.empty(0)
        r = t.add(a, b, out=o)
        assert r is o
        o2 = t.zeros(3)
        t.mul(a, 2, out=o2)
        oi = t.zeros(2, 3)
        t.add(t.tensor([1, 2, 3]), t.tensor([[1], [2]]), out=oi)  # int result written into float out
        ob = t.empty(0, dtype=t.bool)
        t.gt(a, b, out=ob)
        return [o, o2, oi, ob]
    _both(prog)


def test_data_assignment_changes_dtype_and_shape():
    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0]) * 2
        x.data = t.tensor([[1, 2], [3, 4]]) + 1
        y = t.tensor([1.0, 2.0]) + 0
        y.data = (y * 1.5).double().reshape(2, 1)
        return [x, y, x + 1, y * 2]
    _both(prog)


def test_set_is_refused_and_leaves_metadata_right():
    x = mt.tensor([1.0, 2.0]) * 2
    with pytest.raises(NotImplementedError):
        x.set_(mt.zeros(5, dtype=mt.int64))
    _same_meta(x)
    assert x.dtype is mt.float32 and x.shape == (2,)


def test_resize_():
    for shape in ((4,), (2, 4), (1,)):
        m = mt.arange(6.0).reshape(2, 3) * 2
        r = real.arange(6.0).reshape(2, 3) * 2
        m.resize_(*shape)
        r.resize_(*shape)
        _same_meta(m, r)
        _same_meta(m * 2, r * 2)


def test_shape_changing_inplace_ops():
    def prog(t):
        a = t.arange(6.0).reshape(2, 3) * 1
        b = (t.arange(6.0) + 1).reshape(1, 6) * 1
        c = t.ones(1, 3, 1) * 3
        d = t.ones(2, 3) * 3
        a.t_()
        b.squeeze_()
        c.unsqueeze_(0)
        d.transpose_(0, 1)
        return [a, b, c, d, a + 1, b * d.reshape(6), c - 1]
    _both(prog)


def test_inplace_keeps_dtype_and_refuses_float_into_int():
    def prog(t):
        h = t.tensor([1.0, 2.0], dtype=t.float16) * 1
        h += 1.5
        h *= t.tensor([2.0, 3.0])  # float32 operand, stays float16
        i = t.tensor([1, 2]) + 0
        i += 3
        i.mul_(t.tensor([True, False]))
        return [h, i]
    _both(prog)
    for t in (real, mt):
        i = t.tensor([1, 2]) + 0
        with pytest.raises(RuntimeError):
            i.add_(1.5)
        if t is mt:
            _same_meta(i)


def test_casts_after_a_chain():
    def prog(t):
        x = (t.tensor([1.25, -2.5, 3.75]) * 2).exp().log()
        return [x.float(), x.double(), x.half(), x.long(), x.int(), x.short(), x.char(), x.byte(), x.bool(),
                x.to(t.int32), x.to(t.float64), x.type(t.int64), x.type_as(t.tensor([1])), x.to(t.float16) + 1]
    _both(prog)


def test_copy_into_views():
    def prog(t):
        x = t.zeros(3, 4) * 1
        row = x[1]
        flat = x.view(12)
        row.copy_(t.tensor([1, 2, 3, 4]))       # int source into a float view
        x[2].copy_(t.tensor(7.0, dtype=t.float64))  # broadcast and cast
        col = x[:, 0]
        col.copy_(t.tensor([True, False, True]))
        return [x, row, flat, col, flat * 2, row + col[0]]
    _both(prog)


def test_views_follow_writes_to_their_base():
    def prog(t):
        x = t.arange(12.0).reshape(3, 4) * 1
        v = x.view(2, 6)
        tr = x.t()
        s = x[1:, ::2]
        x.add_(1)
        x.mul_(t.tensor([1.0, 2.0, 3.0, 4.0]))
        s.fill_(0.5)
        tr[0].zero_()
        x[2] = 9
        x.clamp_(0, 10).relu_()
        return [x, v, tr, s, v + s.sum(), tr * 2]
    _both(prog)


def test_inplace_through_a_view_of_a_recorded_result():
    def prog(t):
        base = (t.arange(8.0) * 2).reshape(2, 4)
        view = base[0]
        view.sqrt_()
        view.div_(2)
        view.exp_()
        return [base, view, base.sum(0)]
    _both(prog)


def test_scatter_add_gradient_with_recorded_inputs():
    def prog(t):
        x = (t.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4)) * 1).requires_grad_()
        y = x * 2 + 1
        idx = t.tensor([[0, 1, 2, 0], [1, 2, 0, 1], [2, 0, 1, 2]])
        z = t.take_along_dim(y, idx, 0).exp().sum() + t.gather(y, 1, idx).sum()
        z.backward()
        return [y, z, x.grad]
    _both(prog)


def test_mindspore_writers_drop_the_record():
    import mindspore as ms
    x = mt.tensor([1.0, 2.0]) * 2
    assert "_dt" in x.__dict__
    x.assign_value(ms.Tensor(np.zeros((3, 2), np.float64)))
    _same_meta(x)
    assert x.dtype is mt.float64 and x.shape == (3, 2)


def test_parameter_writes():
    def prog(t):
        p = t.nn.Parameter(t.tensor([1.0, 2.0, 3.0]) * 2)
        opt = t.optim.SGD([p], lr=0.1, momentum=0.9)
        for _ in range(2):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        q = t.nn.Parameter(t.ones(2) * 1)
        q.data = t.ones(3, 2) * 2
        with t.no_grad():
            p.mul_(2)
            p.copy_(t.tensor([1, 2, 3]))
        return [p.detach(), q.detach(), p * 1, q + 1]
    _both(prog)


def test_check_mode_catches_a_wrong_record():
    code = ("import msnb.adapter.torch as t\n"
            "x = t.tensor([1.0, 2.0]) * 2\n"
            "(x + 1).exp().sum().item()\n"
            "x._dt = t.float64\n"
            "try:\n    x.dtype\nexcept AssertionError:\n    print('caught')\n")
    env = dict(os.environ, MSNB_CHECK_META="1", GLOG_v="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert "caught" in out.stdout, out.stderr[-2000:]
