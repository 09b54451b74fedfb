"""``KA`` kernels: ``K``'s kernels whose plain result comes back as an adapter tensor.

The one-step paths of elementwise ops (``x + y``, ``x.exp()`` ...) call them so
that the result is re-classed in the kernel's own Python frame
(``_ms.adapted``).  What must hold: ``KA`` always runs what ``K`` holds (a
profiler hook, a test's monkeypatch), tensors get their class back on every
way out, and the ops built on them give PyTorch's values and dtypes."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import mindspore as ms
import msnb.adapter.torch as torch
from msnb.adapter import _dispatch, _ms
from msnb.adapter._dispatch import K, KA

from .torch._kernel_log import kernel_names


def test_ka_results_are_adapter_tensors_and_operands_keep_their_class():
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([0.5, 4.0])
    for out in (KA.add(x, y), KA.exp(x), KA.relu(x), KA.relu_float(x), KA.div(x, 2.0), KA.mul(x, x)):
        assert type(out) is torch.Tensor
    assert type(x) is torch.Tensor and type(y) is torch.Tensor
    np.testing.assert_array_equal(KA.add(x, y).numpy(), [1.5, 6.0])


def test_a_failing_ka_kernel_restores_the_class():
    x = torch.ones(2)
    with pytest.raises(TypeError):
        KA.add(x, "not a number")
    with pytest.raises(TypeError):
        KA.neg("not a tensor")
    assert type(x) is torch.Tensor


def test_ka_follows_every_change_of_k(monkeypatch):
    """A monkeypatched ``K`` entry (and its undo) is what ``KA`` and the one-step paths run."""
    calls = []
    plain = K.add
    monkeypatch.setattr(K, "add", lambda a, b: calls.append((type(a), type(b))) or ms.ops.add(a, b))
    x = torch.ones(2)
    out = x + x
    assert calls == [(torch.Tensor, torch.Tensor)] and type(out) is torch.Tensor
    monkeypatch.undo()
    assert K.add is plain and KA.add is plain.adapted
    x + x
    assert len(calls) == 1


def test_kd_names_the_direct_pyboost_call_only_while_k_holds_it(monkeypatch):
    """The one-step ops call ``KD``'s PyBoost function themselves: only while ``K``'s entry is
    MindSpore's direct kernel (not a monkeypatch or hook, whose ``functools.wraps`` copies
    the kernel's attributes)."""
    assert _dispatch.KD["add"] is not None and _dispatch.KD["exp"] is not None
    assert _dispatch.KD["relu_float"] is None  # a composed kernel: KA's path
    monkeypatch.setattr(K, "add", lambda a, b: ms.ops.add(a, b))
    assert _dispatch.KD["add"] is None
    monkeypatch.undo()
    assert _dispatch.KD["add"] == _ms.direct_target(K.add) is not None
    with kernel_names():
        assert _dispatch.KD["add"] is None and _dispatch.KD["exp"] is None
    assert _dispatch.KD["add"] is not None


def test_the_inlined_kernel_call_restores_the_class_when_it_fails(monkeypatch):
    def fail(prim, args):
        assert all(type(a) is ms.Tensor for a in args)  # handed over as plain MindSpore tensors
        raise RuntimeError("kernel failed")
    x, y = torch.ones(2), torch.ones(2)
    assert x.dtype is y.dtype is torch.float32  # (read once: recorded, as the one-step paths need)
    for name, call in (("add", lambda: x + y), ("exp", lambda: x.exp()), ("add", lambda: x + x)):
        monkeypatch.setitem(_dispatch.KD, name, (fail, None))
        with pytest.raises(RuntimeError, match="kernel failed"):
            call()
        assert type(x) is torch.Tensor and type(y) is torch.Tensor
        monkeypatch.undo()
    np.testing.assert_array_equal((x + y).numpy(), [2.0, 2.0])


def test_a_profiler_hook_sees_the_one_step_kernels():
    x = torch.ones(3)
    with kernel_names() as names:
        (x * 2.0 + x).exp().neg().relu()
    assert names == ["mul", "add", "exp", "neg", "relu_float"]
    with kernel_names() as names:
        torch.tensor([1, -2]).relu()
    assert names == ["relu"]
    assert KA.exp is K.exp.adapted  # the hook is gone: the direct kernel again


def test_a_kernel_that_already_is_plain_args_is_not_wrapped_again():
    assert K.div is _dispatch._div_k
    assert _ms.plain_args(K.exp) is K.exp


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_on_the_one_step_path_keeps_nan_as_pytorch(dtype):
    a = np.array([np.nan, -1.0, 0.0, 2.5, -np.inf, np.inf], dtype=dtype)
    got, want = torch.tensor(a).relu(), real.tensor(a).relu()
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_operators_on_the_one_step_path_match_pytorch(dtype):
    a = np.array([3, -2, 5, 7], dtype=dtype)
    b = np.array([2, 4, -1, 3], dtype=dtype)
    for f in (lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
              lambda x, y: x + 2, lambda x, y: x * 0.5, lambda x, y: x / 3, lambda x, y: -x,
              lambda x, y: x.neg().abs()):
        got, want = f(torch.tensor(a), torch.tensor(b)), f(real.tensor(a), real.tensor(b))
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-3 if dtype == "float16" else 1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_matmul_on_the_one_step_path_matches_pytorch(dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3) - 2
    b = np.arange(12, dtype=dtype).reshape(3, 4) / 4
    x, y = torch.tensor(a), torch.tensor(b)
    x.dtype, y.dtype  # recorded from here on, as every op result's is
    with kernel_names() as names:
        got = x @ y
    want = real.tensor(a) @ real.tensor(b)
    assert names == ["matmul_nonempty"]
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-3)


def test_matmul_leaves_the_one_step_path_where_pytorch_does_more():
    x, y = torch.ones(2, 3), torch.ones(3, 2)
    x.dtype, y.dtype
    with kernel_names() as names:  # an autocast region casts first
        with torch.autocast("cpu", dtype=torch.float16):
            got = x @ y
    with real.autocast("cpu", dtype=real.float16):
        want = real.ones(2, 3) @ real.ones(3, 2)
    assert names[-1] == "matmul" and str(got.dtype) == str(want.dtype)
    empty = torch.ones(2, 0) @ torch.ones(0, 3)  # zeros, as PyTorch (MindSpore leaves memory uninitialised)
    np.testing.assert_array_equal(empty.numpy(), (real.ones(2, 0) @ real.ones(0, 3)).numpy())
    w = torch.ones(2, 3, requires_grad=True)
    out = w @ y
    assert out.grad_fn.name() == (real.ones(2, 3, requires_grad=True) @ real.ones(3, 2)).grad_fn.name()
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 2.0))
    with pytest.raises(RuntimeError):  # shapes that do not multiply: PyTorch's error type
        x @ torch.ones(2, 2)
    with pytest.raises(RuntimeError):
        real.ones(2, 3) @ real.ones(2, 2)
