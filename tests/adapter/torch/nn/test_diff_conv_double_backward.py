"""Double backward through convolutions against real PyTorch: the input and weight
gradients taken with ``create_graph=True`` are themselves differentiable (a gradient
penalty, a Hessian-vector product, forward-mode AD by double-vjp as the neural tangent
kernel tutorial does), for strides, padding (including 'same'), dilation and groups, in
conv2d, conv1d and an ``nn.Conv2d`` module; the grad-of-grad values match PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, run_case

R = np.random.default_rng(3)
CASES = []
#: (N, C, H, W, O, k, stride, padding, dilation, groups)
GEOMETRIES = [(2, 3, 7, 6, 4, 3, 1, 0, 1, 1), (2, 4, 9, 8, 6, 3, 2, 1, 1, 2), (1, 2, 10, 9, 3, 2, 3, 2, 2, 1),
              (2, 6, 8, 8, 6, 3, 1, "same", 2, 3), (1, 2, 5, 5, 2, 5, 1, 4, 1, 1)]


def grad_of_grad(geo):
    N, C, H, W, O, k, s, p, d, G = geo
    xa, wa = R.standard_normal((N, C, H, W)), R.standard_normal((O, C // G, k, k))

    def fn(t):
        x = t.tensor(xa, requires_grad=True)
        w = t.tensor(wa, requires_grad=True)
        out = t.nn.functional.conv2d(x, w, stride=s, padding=p, dilation=d, groups=G)
        gx, gw = t.autograd.grad((out ** 2).sum(), (x, w), create_graph=True)
        ggx, ggw = t.autograd.grad(gx.sin().sum() + (gw ** 2).sum(), (x, w))
        return gx, gw, ggx, ggw
    return fn


for geo in GEOMETRIES:
    CASES.append(case(f"conv2d grad of grad {geo}", ("torch.nn.functional.conv2d", "torch.autograd.grad"),
                      grad_of_grad(geo), kind="behaviour", rtol=1e-9, atol=1e-9))


X1, W1, X2 = (R.standard_normal(s).astype(np.float32) for s in ((2, 3, 11), (4, 3, 3), (2, 2, 6, 6)))


def conv1d_penalty(t):
    x = t.tensor(X1, requires_grad=True)
    w = t.tensor(W1, requires_grad=True)
    out = t.nn.functional.conv1d(x, w, stride=2, padding=1)
    (gx,) = t.autograd.grad(out.tanh().sum(), x, create_graph=True)
    penalty = ((gx.norm(2, dim=1) - 1) ** 2).mean()  # WGAN-GP's gradient penalty
    return gx, t.autograd.grad(penalty, w)[0]


def module_hvp(t):
    t.manual_seed(0)
    conv = t.nn.Conv2d(2, 3, 3, padding=1)
    x = t.tensor(X2)
    v = [t.ones_like(p) * 0.1 for p in conv.parameters()]
    loss = conv(x).relu().pow(2).mean()
    gs = t.autograd.grad(loss, list(conv.parameters()), create_graph=True)
    return t.autograd.grad(sum((g * u).sum() for g, u in zip(gs, v)), list(conv.parameters()))


CASES.append(case("conv1d gradient penalty", ("torch.nn.functional.conv1d", "torch.autograd.grad"), conv1d_penalty,
                  kind="behaviour", rtol=1e-4, atol=1e-5))
CASES.append(case("Conv2d Hessian-vector product", ("torch.nn.Conv2d", "torch.autograd.grad"), module_hvp,
                  kind="behaviour", rtol=1e-4, atol=1e-5))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_conv_double_backward_matches_pytorch(c):
    run_case(c)
