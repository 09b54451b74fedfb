"""torch.autocast in msnb: op lists, nesting, decorator, errors -- against real torch 2.13 on CPU.

Real torch's CPU autocast is the oracle where its CPU lists agree with the
CUDA lists msnb follows (linear, matmul, mse_loss); elsewhere the CUDA list
is asserted directly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torch.amp import autocast_mode as A
from msnb.adapter.torch.cuda import amp as cuda_amp

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3)).astype(np.float32)
W = RNG.standard_normal((5, 3)).astype(np.float32)
B = RNG.standard_normal(5).astype(np.float32)


def _linear_under_autocast(lib, hook):
    x, w, b = (lib.tensor(a, requires_grad=True) for a in (X, W, B))
    with lib.autocast("cpu", dtype=lib.float16) if lib is real else mt.amp.autocast("cpu", dtype=mt.float16):
        xs, ws, bs = hook("linear", x, w, b)
        y = lib.nn.functional.linear(xs, ws, bs)
    (y.float() ** 2).sum().backward()
    return y, x.grad, w.grad, b.grad


def test_linear_is_cast_to_float16_like_torch_and_grads_stay_float32():
    ry, *rg = _linear_under_autocast(real, lambda name, *t: t)
    my, *mg = _linear_under_autocast(mt, A.autocast_inputs)
    assert str(my.dtype) == str(ry.dtype) == "torch.float16"
    np.testing.assert_allclose(my.detach().float().numpy(), ry.detach().float().numpy(), rtol=2e-3, atol=2e-3)
    for r, m in zip(rg, mg):
        assert str(m.dtype) == "torch.float32"
        np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-2, atol=1e-2)


def test_fp32_list_op_gets_float32_inputs_like_torch():
    a = mt.tensor(X).half()
    with mt.amp.autocast("cuda"):
        (a32,) = A.autocast_inputs("mse_loss", a)
        (s,) = A.autocast_inputs("softmax", a)
    assert a32.dtype is mt.float32 and s.dtype is mt.float32
    with real.autocast("cpu", dtype=real.float16):
        ref = real.nn.functional.mse_loss(real.tensor(X).half(), real.zeros(4, 3).half())
    mine = mt.nn.functional.mse_loss(a32, mt.zeros(4, 3))
    assert str(mine.dtype) == str(ref.dtype) == "torch.float32"


def test_promote_list_uses_widest_input_and_unlisted_ops_are_left_alone():
    h, f = mt.ones(2).half(), mt.ones(2)
    with mt.amp.autocast("cuda"):
        assert {t.dtype for t in A.autocast_inputs("dot", h, f)} == {mt.float32}
        assert {t.dtype for t in A.autocast_inputs("dot", h, h)} == {mt.float16}
        assert [t.dtype for t in A.autocast_inputs("relu", h, f)] == [mt.float16, mt.float32]


def test_float64_integers_and_non_tensors_are_never_cast():
    d, i = mt.ones(2, dtype=mt.float64), mt.ones(2, dtype=mt.int64)
    with mt.amp.autocast("cuda"):
        out = A.autocast_inputs("matmul", d, i, 3.0, None)
    assert out[0] is d and out[1] is i and out[2:] == (3.0, None)


def test_no_state_returns_inputs_unchanged():
    x = mt.ones(2)
    assert A.autocast_inputs("linear", x)[0] is x
    assert not mt.amp.autocast_mode.is_autocast_enabled()


def test_nesting_enabled_false_and_restore_after_exception():
    x = mt.ones(2, 2)
    with mt.amp.autocast("cuda"):
        assert A.is_autocast_enabled() and A.is_autocast_enabled("cpu")
        with mt.amp.autocast("cuda", enabled=False):
            assert not A.is_autocast_enabled()
            assert A.autocast_inputs("matmul", x)[0].dtype is mt.float32
        assert A.autocast_inputs("matmul", x)[0].dtype is mt.float16
        with pytest.raises(ZeroDivisionError):
            with mt.amp.autocast("cuda", enabled=False):
                1 / 0
        assert A.is_autocast_enabled()
    assert not A.is_autocast_enabled() and A.current_frames() == ()


def test_decorator_form():
    @mt.amp.autocast("cuda")
    def f(x):
        assert A.is_autocast_enabled()
        return A.autocast_inputs("mm", x)[0]

    assert f(mt.ones(2, 2)).dtype is mt.float16
    assert not A.is_autocast_enabled()


def test_default_dtypes_match_torch():
    for dev in ("cpu", "cuda"):
        assert str(A.get_autocast_dtype(dev)) == str(real.get_autocast_dtype(dev))
    with mt.amp.autocast("cuda", dtype=mt.float16):
        assert A.get_autocast_dtype("cuda") is mt.float16


def test_bfloat16_on_cpu_raises_a_clear_error():
    with pytest.raises(RuntimeError, match="bfloat16.*dtype=torch.float16"):
        with mt.amp.autocast("cpu"):  # PyTorch's CPU default is bfloat16
            pass
    with pytest.raises(RuntimeError, match="bfloat16"):
        with mt.amp.autocast("cuda", dtype=mt.bfloat16):
            pass
    assert A.current_frames() == ()
    with mt.amp.autocast("cpu", dtype=mt.bfloat16, enabled=False):  # disabled: nothing to run
        assert not A.is_autocast_enabled()


def test_unsupported_dtype_warns_and_disables_like_torch():
    msgs = []
    for lib in (real, mt.amp):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.autocast("cpu", dtype=(real if lib is real else mt).float64):
                assert not (real.is_autocast_enabled("cpu") if lib is real else A.is_autocast_enabled())
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1]


def test_unknown_device_type_and_non_string():
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xyz'"):
        mt.amp.autocast("xyz")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        mt.amp.autocast(0)


def test_autocast_op_does_not_recast_inside_and_o1_casts_output_back():
    seen = []

    @A.autocast_op("matmul")
    def inner(a, b):
        seen.append(a.dtype)
        return a.matmul(b)

    @A.autocast_op("linear")
    def outer(a, b):
        seen.append(a.dtype)
        with mt.no_grad():
            return inner(a.float(), b.float())  # float32 on purpose: must not be re-cast

    x = mt.ones(2, 2)
    with mt.amp.autocast("cuda"):
        assert outer(x, x).dtype is mt.float32 and seen == [mt.float16, mt.float32]
        assert inner(x, x).dtype is mt.float16
    A.push(frame := A.Frame("O1", True, mt.float16))
    try:
        seen.clear()
        assert inner(x, x).dtype is mt.float32 and seen == [mt.float16]
    finally:
        A.pop(frame)
    assert outer.__msnb_autocast__ == "linear"


def test_cuda_amp_spelling_warns_like_torch_and_defaults_to_float16():
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.autocast\(args...\)` is deprecated"):
        ctx = cuda_amp.autocast()
    with ctx:
        assert A.get_autocast_dtype() is mt.float16 and A.is_autocast_enabled()


def test_custom_fwd_casts_inputs_and_custom_bwd_replays_state():
    state = {}

    class Square(mt.autograd.Function):
        @staticmethod
        @mt.amp.custom_fwd(device_type="cuda", cast_inputs=mt.float32)
        def forward(ctx, x):
            state["fwd"] = (x.dtype, A.is_autocast_enabled())
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @mt.amp.custom_bwd(device_type="cuda")
        def backward(ctx, g):
            state["bwd"] = A.is_autocast_enabled()
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with mt.amp.autocast("cuda"):
        y = Square.apply(x.half())
    assert state["fwd"] == (mt.float32, False)
    y.sum().backward()
    assert state["bwd"] is False
    assert x.grad.tolist() == [2.0, 4.0]


def test_autocast_op_leaves_out_and_inplace_calls_uncast():
    @A.autocast_op("matmul")
    def mm(a, b, *, out=None):
        return a.matmul(b) if out is None else out.copy_(a.matmul(b))

    @A.autocast_op("relu")
    def relu(x, inplace=False):
        return x.relu_() if inplace else x.relu()

    x, out = mt.ones(2, 2), mt.zeros(2, 2)
    with mt.amp.autocast("cuda"):
        assert mm(x, x, out=out) is out and out.dtype is mt.float32 and out.sum().item() == 8.0
        assert mm(x, x).dtype is mt.float16
    y = mt.tensor([-1.0, 2.0])
    A.push(frame := A.Frame("O1", True, mt.float16))
    try:
        assert relu(y, True) is y and y.tolist() == [0.0, 2.0]
        assert relu(mt.tensor([-3.0]), inplace=True).tolist() == [0.0]
        z = relu(mt.tensor([-3.0, 1.0]))
        assert z.dtype is mt.float32 and z.tolist() == [0.0, 1.0]
    finally:
        A.pop(frame)
