"""Elementwise ops and reductions match real PyTorch in value, dtype and gradient."""

import numpy as np
import pytest

from .harness import compare

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
ROW = rng.standard_normal((4,)).astype(np.float32)
POS = (rng.random((3, 4)) + 0.5).astype(np.float32)

BINARY = {
    "add": lambda t, a, b: a + b, "sub": lambda t, a, b: a - b, "mul": lambda t, a, b: a * b,
    "div": lambda t, a, b: a / b, "maximum": lambda t, a, b: t.maximum(a, b),
    "minimum": lambda t, a, b: t.minimum(a, b), "atan2": lambda t, a, b: t.atan2(a, b),
    "pow": lambda t, a, b: t.pow(a.abs() + 0.5, b),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_broadcasting(name):
    compare(BINARY[name], A, ROW, names=(f"torch.{name}",))


UNARY = {
    "exp": lambda t, x: t.exp(x), "log": lambda t, x: t.log(x.abs() + 0.1), "sqrt": lambda t, x: t.sqrt(x.abs() + 0.1),
    "rsqrt": lambda t, x: t.rsqrt(x.abs() + 0.1), "sin": lambda t, x: t.sin(x), "cos": lambda t, x: t.cos(x),
    "tanh": lambda t, x: t.tanh(x), "sigmoid": lambda t, x: t.sigmoid(x), "relu": lambda t, x: t.relu(x),
    "abs": lambda t, x: x.abs(), "neg": lambda t, x: -x, "erf": lambda t, x: t.erf(x),
    "log1p": lambda t, x: t.log1p(x.abs()), "expm1": lambda t, x: t.expm1(x), "square": lambda t, x: t.square(x),
    "reciprocal": lambda t, x: t.reciprocal(x.abs() + 0.5), "clamp": lambda t, x: x.clamp(-0.5, 0.5),
    "floor": lambda t, x: t.floor(x), "round": lambda t, x: t.round(x * 3),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    compare(UNARY[name], A, names=(f"torch.{name}",))


REDUCTIONS = {
    "sum": lambda t, x: x.sum(), "sum_dim": lambda t, x: x.sum(1, keepdim=True), "mean": lambda t, x: x.mean(0),
    "prod": lambda t, x: x.prod(1), "amax": lambda t, x: x.amax(1), "max_dim": lambda t, x: x.max(1)[0],
    "min": lambda t, x: x.min(), "std": lambda t, x: x.std(1), "var": lambda t, x: x.var(),
    "norm": lambda t, x: x.norm(), "logsumexp": lambda t, x: t.logsumexp(x, 1),
    "cumsum": lambda t, x: x.cumsum(1), "softmax": lambda t, x: t.softmax(x, 1),
    "log_softmax": lambda t, x: t.log_softmax(x, 1),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name):
    compare(REDUCTIONS[name], A, names=(f"torch.{name.split('_')[0]}",))


def test_argmax_topk_sort_match_indices():
    compare(lambda t, x: (x.argmax(1), x.argmin(0)), A, grad=False, names=("torch.argmax", "torch.argmin"))
    compare(lambda t, x: t.topk(x, 2, dim=1), A, names=("torch.topk",))
    compare(lambda t, x: t.sort(x, dim=1, descending=True), A, names=("torch.sort",))


def test_type_promotion_follows_pytorch():
    import torch as real
    import msnb.adapter.torch as mt
    cases = [
        (lambda t: t.tensor([1, 2]) * 2.5), (lambda t: t.tensor([1, 2], dtype=t.int32) + t.tensor(3)),
        (lambda t: t.tensor([1, 2], dtype=t.uint8) + t.tensor([1], dtype=t.int8)),
        (lambda t: t.tensor([True]) + 1), (lambda t: t.tensor([1.0], dtype=t.float16) + t.tensor([1.0])),
        (lambda t: t.tensor([1, 2]) / 2), (lambda t: t.tensor(2.0, dtype=t.float64) * t.tensor([1.0])),
    ]
    for c in cases:
        assert str(c(real).dtype) == str(c(mt).dtype)


def test_comparisons_give_bool():
    compare(lambda t, a, b: (a > b, a <= b, a == a, a != b), A, B, grad=False, names=("torch.gt", "torch.le", "torch.eq", "torch.ne"))
