"""``print(loss)`` shows PyTorch's node name: ``grad_fn=<NllLossBackward0>``,
``<LeakyReluBackward1>`` for the in-place form ...  msnb builds these
functions from smaller ops; their results' nodes carry the name PyTorch's
fused op gives, checked against real PyTorch (and ``x * 2`` followed by an
in-place write to ``x`` still backpropagates, as in PyTorch: the product
saves only the operand its gradient reads)."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import mt, real

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)

CASES = {
    "mse_loss": lambda t, F, x: F.mse_loss(x, t.zeros(2, 3)),
    "mse_loss[none]": lambda t, F, x: F.mse_loss(x, t.zeros(2, 3), reduction="none"),
    "nll_loss": lambda t, F, x: F.nll_loss(x, t.tensor([0, 2])),
    "nll_loss[2d]": lambda t, F, x: F.nll_loss(x.reshape(1, 2, 3, 1), t.zeros(1, 3, 1, dtype=t.int64)),
    "cross_entropy": lambda t, F, x: F.cross_entropy(x, t.tensor([0, 2])),
    "cross_entropy[sum]": lambda t, F, x: F.cross_entropy(x, t.tensor([0, 2]), reduction="sum"),
    "binary_cross_entropy": lambda t, F, x: F.binary_cross_entropy(t.sigmoid(x), t.ones(2, 3)),
    "bce_with_logits": lambda t, F, x: F.binary_cross_entropy_with_logits(x, t.ones(2, 3)),
    "smooth_l1_loss": lambda t, F, x: F.smooth_l1_loss(x, t.zeros(2, 3)),
    "huber_loss": lambda t, F, x: F.huber_loss(x, t.zeros(2, 3)),
    "leaky_relu": lambda t, F, x: F.leaky_relu(x, 0.2),
    "leaky_relu_": lambda t, F, x: F.leaky_relu(x * 1, 0.2, inplace=True),
    "nn.LeakyReLU(inplace)": lambda t, F, x: t.nn.LeakyReLU(0.2, inplace=True)(x * 1),
    "elu": lambda t, F, x: F.elu(x),
    "elu_": lambda t, F, x: F.elu(x * 1, inplace=True),
    "gelu": lambda t, F, x: F.gelu(x),
    "silu": lambda t, F, x: F.silu(x),
    "softplus": lambda t, F, x: F.softplus(x),
    "hardtanh": lambda t, F, x: F.hardtanh(x),
    "glu": lambda t, F, x: F.glu(t.cat([x, x], 1)),
    "hardswish": lambda t, F, x: F.hardswish(x),
    "mish": lambda t, F, x: F.mish(x),
    "layer_norm": lambda t, F, x: F.layer_norm(x, (3,)),
    "batch_norm": lambda t, F, x: F.batch_norm(x, None, None, training=True),
    "embedding": lambda t, F, x: F.embedding(t.tensor([1, 0]), x),
    "l1_loss (composite in PyTorch too)": lambda t, F, x: F.l1_loss(x, t.zeros(2, 3)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_grad_fn_name_and_print_match_pytorch(name):
    shown = []
    for t in (real, mt):
        x = t.tensor(X, requires_grad=True)
        out = CASES[name](t, t.nn.functional, x)
        shown.append((out.grad_fn.name(), repr(out).rsplit("grad_fn=", 1)[-1]))
    assert shown[1] == shown[0]


def test_product_saves_only_what_its_gradient_reads():
    """``y = x * 2; x.add_(1); y.backward()`` works in PyTorch (nn.LeakyReLU(inplace=True) after a layer)."""
    grads = []
    for t in (real, mt):
        a = t.tensor(X, requires_grad=True)
        x = a * 1.0
        y = x * 2.0 + x / 4.0
        x.add_(1)
        y.sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])
    for t in (real, mt):  # the tensor operand is read by the other's gradient: PyTorch refuses
        a, b = t.tensor(X, requires_grad=True), t.tensor(X, requires_grad=True)
        x = a * 1.0
        y = x * b
        x.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()

