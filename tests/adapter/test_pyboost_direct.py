"""Kernels that call MindSpore's PyBoost functions directly (``_ms._pyboost_target``).

Outside a trace, ``K.add(a, b)`` skips MindSpore's two Python frames
(``ops.add`` -> ``Add.__call__``) and calls ``pyboost_add(prim, [a, b])``, which
is what those frames do.  The shortcut must never change what runs: with a jit
context open (graph mode records ops through it) the primitive's own
``__call__`` runs, a function that is not exactly MindSpore's generated wrapper
keeps the ordinary call, and adapter tensors get their class back on every
way out."""

from __future__ import annotations

import mindspore as ms
import mindspore.graph.jit_context as jc
import numpy as np
import pytest

import msnb.adapter.torch as torch
from msnb.adapter import _ms
from msnb.adapter._dispatch import K


def test_generated_wrappers_and_primitives_are_recognised():
    for fn, n in ((ms.ops.add, 2), (ms.ops.exp, 1), (ms.ops.auto_generate.gen_ops_prim.select_op, 3)):
        target = _ms._pyboost_target(fn)
        assert target is not None and target[2] == n and target[0].__name__.startswith("pyboost_")
    assert K.add.__code__.co_name == "fast" and K.exp.__code__.co_name == "fast"


def test_anything_else_keeps_the_ordinary_call():
    # not generated code, a wrapper with defaults, a non-PyBoost primitive class
    assert _ms._pyboost_target(lambda a, b: ms.ops.add(a, b)) is None
    assert _ms._pyboost_target(ms.ops.sum) is None
    assert _ms._pyboost_target(ms.ops.Add) is None
    assert _ms.plain_args(ms.ops.sum).__code__.co_name == "call"


def test_direct_call_gives_mindspores_result_and_keeps_classes():
    x, y = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, 0.25, 2.0])
    out = K.add(x, y)
    assert type(out) is ms.Tensor
    np.testing.assert_array_equal(out.asnumpy(), ms.ops.add(ms.Tensor(x.numpy()), ms.Tensor(y.numpy())).asnumpy())
    assert type(x) is torch.Tensor and type(y) is torch.Tensor
    np.testing.assert_array_equal(K.mul(x, x).asnumpy(), [1.0, 4.0, 9.0])  # the same tensor twice
    assert type(x) is torch.Tensor
    np.testing.assert_array_equal(K.exp(x).asnumpy(), ms.ops.exp(ms.Tensor(x.numpy())).asnumpy())


def test_a_failing_direct_call_restores_the_class():
    x = torch.ones(2)
    with pytest.raises(TypeError):
        K.add(x, "not a number")
    assert type(x) is torch.Tensor
    with pytest.raises(TypeError):
        K.neg("not a tensor")


def test_an_open_jit_context_gets_the_op_through_the_primitive(monkeypatch):
    """Graph mode records every op through the jit context's ``run_op``: the shortcut must not skip it."""
    seen = []

    class Recording:
        compiled = False

        def run_op(self, prim, res, *args):
            seen.append((prim.name, tuple(type(a) for a in args)))
            return res

    x = torch.ones(3)
    monkeypatch.setattr(jc, "_jit_context", Recording())
    out = K.add(x, x)
    K.neg(x)
    monkeypatch.setattr(jc, "_jit_context", None)
    assert seen == [("Add", (ms.Tensor, ms.Tensor)), ("Neg", (ms.Tensor,))]
    assert type(x) is torch.Tensor
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 2.0, 2.0])


def test_one_step_paths_keep_pytorchs_dtypes_and_autograd():
    """``one_step`` / the unary shortcut take only operands needing no promotion and no record."""
    f = torch.tensor([1.0, -2.0])
    d = torch.tensor([0.0, 1.0], dtype=torch.float64)
    i = torch.tensor([3, 4])
    assert (f + 1).dtype is torch.float32 and (i * 2).dtype is torch.int64 and (i / 2).dtype is torch.float32
    assert (d + 0.1).dtype is torch.float64 and (d + 0.1).numpy()[0] == 0.1  # not rounded to float32
    assert (f + d).dtype is torch.float64 and (i + f[:1]).dtype is torch.float32  # promotion, broadcasting
    assert (i + True).tolist() == [4, 5]
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    y = (w * f).exp().relu()
    assert y.grad_fn.name() == "ReluBackward0"
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), f.numpy() * np.exp(w.detach().numpy() * f.numpy()), rtol=1e-5)
    with torch.no_grad():
        assert (w * 2).grad_fn is None and not (w * 2).requires_grad
    nan = torch.tensor([float("nan"), -1.0, 2.0]).relu()
    assert np.isnan(nan.numpy()[0]) and nan.tolist()[1:] == [0.0, 2.0]
