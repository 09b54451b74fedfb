"""Autograd: PyTorch's ``backward``/``grad`` semantics on msnb tensors."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


def _both(fn):
    return fn(real), fn(mt)


def test_grad_accumulates_across_backward_calls():
    for t in (real, mt):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        (w * 3).sum().backward()
        assert w.grad.tolist() == [5.0, 7.0]


def test_backward_with_gradient_argument_and_retain_graph():
    def run(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        y.backward(t.tensor([1.0, 0.5, 0.1]), retain_graph=True)
        y.backward(t.tensor([1.0, 1.0, 1.0]))
        return x.grad.numpy()
    r, m = _both(run)
    np.testing.assert_allclose(m, r)


def test_second_backward_without_retain_graph_fails():
    x = mt.tensor([1.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_no_grad_enable_grad_inference_mode_and_detach():
    x = mt.ones(2, requires_grad=True)
    with mt.no_grad():
        y = x * 2
        with mt.enable_grad():
            z = x * 2
    assert not y.requires_grad and z.requires_grad
    with mt.inference_mode():
        assert not (x * 2).requires_grad
    assert not x.detach().requires_grad

    @mt.no_grad()
    def f(a):
        return a * 2
    assert not f(x).requires_grad


def test_autograd_grad_and_higher_order():
    def run(t):
        x = t.tensor([0.5, 1.5], requires_grad=True)
        y = (x ** 3).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        (g2,) = t.autograd.grad(g.sum(), x)
        return g.detach().numpy(), g2.numpy()
    r, m = _both(run)
    np.testing.assert_allclose(m[0], r[0], rtol=1e-5)
    np.testing.assert_allclose(m[1], r[1], rtol=1e-5)


def test_register_hook_and_retain_grad():
    def run(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: g + 1)
        (y * y).sum().backward()
        return x.grad.numpy(), y.grad.numpy()
    r, m = _both(run)
    np.testing.assert_allclose(m[0], r[0])
    np.testing.assert_allclose(m[1], r[1])


def test_custom_function_with_ctx():
    def make(t):
        class Cube(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x ** 3 * k

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                assert ctx.needs_input_grad[0]
                return g * 3 * x ** 2 * ctx.k, None
        x = t.tensor([1.0, -2.0], requires_grad=True)
        Cube.apply(x, 2.0).sum().backward()
        return x.grad.numpy()
    r, m = _both(make)
    np.testing.assert_allclose(m, r)


def test_variable_is_a_tensor():
    v = mt.autograd.Variable(mt.tensor([1.0]), requires_grad=True)
    assert isinstance(v, mt.Tensor) and v.requires_grad
