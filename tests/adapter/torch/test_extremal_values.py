"""NaN, infinities and signed zeros give PyTorch's results (issue 12, point 4), checked against
real torch: silent wrong results that ordinary values never reach.  The OpInfo-wide replay is
``tests/adapter/opinfo/test_extremal_values.py``; these pin the fixes it led to."""

import numpy as np
import pytest

from .harness import compare, mt, real

NAN, INF = np.nan, np.inf


def _same_bits(fn, *arrays):
    """``fn(lib, *tensors)`` (one float tensor out) equal in value and in the sign of every zero
    and infinity: ``assert_allclose`` takes ``-0.0`` for ``0.0``."""
    r = fn(real, *(real.tensor(a) for a in arrays)).numpy()
    m = fn(mt, *(mt.tensor(a) for a in arrays)).numpy()
    np.testing.assert_array_equal(m, r)
    np.testing.assert_array_equal(np.signbit(m), np.signbit(r))


ROWS = np.array([[1.0, NAN, 3.0, NAN], [1.0, 5.0, 5.0, 2.0], [-INF, 0.0, NAN, 7.0]], np.float32)


@pytest.mark.parametrize("fn", [
    lambda t, a: t.max(a), lambda t, a: t.min(a), lambda t, a: a.max(), lambda t, a: a.amin(),
    lambda t, a: t.amax(a, 1), lambda t, a: t.amin(a, (0, 1), keepdim=True), lambda t, a: t.max(a, 1),
    lambda t, a: a.min(0), lambda t, a: a.max(dim=1, keepdim=True), lambda t, a: t.aminmax(a, dim=1),
    lambda t, a: t.aminmax(a), lambda t, a: t.linalg.norm(a, float("inf")),
], ids=["max", "min", "Tensor.max", "Tensor.amin", "amax-dim", "amin-dims", "max-dim", "Tensor.min-dim",
        "Tensor.max-keepdim", "aminmax-dim", "aminmax", "norm-inf"])
def test_max_and_min_reductions_propagate_nan(fn):
    """MindSpore's ReduceMax / Argmax skip a NaN unless it is first in its row: torch.max(x) was
    the largest number, max(dim) its index.  PyTorch propagates NaN and returns its index, and its
    gradients: max() shares the gradient among the NaNs, amax's is NaN in a NaN row."""
    compare(fn, ROWS)
    compare(fn, ROWS[:, ::-1].copy())  # a NaN leading its row was already right


def test_elementwise_max_and_min_gradients_at_nan():
    """PyTorch gives both operands of maximum / minimum the whole gradient where either is NaN
    (msnb gave it to one); ties still split it."""
    a = np.array([1.0, NAN, 3.0, 2.0, NAN], np.float32)
    b = np.array([2.0, 1.0, 3.0, NAN, NAN], np.float32)
    for f in (lambda t, x, y: t.maximum(x, y), lambda t, x, y: t.minimum(x, y), lambda t, x, y: t.max(x, y),
              lambda t, x, y: x.min(y)):
        compare(f, a, b)


def test_clamp_with_nan_values_and_bounds():
    """A NaN element or tensor bound gives NaN (msnb kept the element when a bound was NaN) and
    passes no gradient, as PyTorch's masks do; a NaN number bound makes every element NaN."""
    x = np.array([1.0, NAN, 3.0, 2.0, -5.0, 7.0], np.float32)
    lo = np.array([2.0, 1.0, NAN, 0.0, 0.0, 5.0], np.float32)
    hi = np.array([3.0, 4.0, 4.0, NAN, 1.0, 4.0], np.float32)
    compare(lambda t, a, b, c: t.clamp(a, b, c), x, lo, hi)
    compare(lambda t, a, b: t.clamp(a, min=b), x, lo)
    compare(lambda t, a, c: a.clamp(max=c), x, hi)
    compare(lambda t, a, b: t.clamp_min(a, b), x, lo)
    compare(lambda t, a, b: t.clamp(a, b[:1], 2.5 * t.ones(1)), x, lo)  # broadcast bounds
    compare(lambda t, a: a.clamp(0.0, 2.5), x)
    compare(lambda t, a: t.clamp(a, min=float("nan")), x)


NUM = np.array([1.0, -1.0, 0.0, 2.5, -3.0, NAN, INF, -INF], np.float32)


@pytest.mark.parametrize("den", [-0.0, 0.0], ids=["-0.0", "+0.0"])
def test_division_by_a_signed_zero(den):
    """``x / -0.0`` is ``-inf`` for positive x: MindSpore's Div gave the zero's sign no say."""
    d = np.full_like(NUM, den)
    _same_bits(lambda t, a, b: a / b, NUM, d)
    _same_bits(lambda t, a, b: t.div(a, b), NUM, d)
    _same_bits(lambda t, a, b: t.true_divide(a, b[:1]), NUM, d)  # broadcast
    _same_bits(lambda t, a: a / den, NUM)
    _same_bits(lambda t, a: t.div(a, den), NUM)
    _same_bits(lambda t, a, b: 2.0 / b, NUM, d)
    _same_bits(lambda t, a, b: t.floor_divide(a, b), NUM, d)
    _same_bits(lambda t, a, b: t.addcdiv(t.zeros(8), a, b), NUM, d)
    _same_bits(lambda t, a, b: a.clone().div_(b), NUM, d)


SOFTMAX_ROWS = np.array([[1.0, 2.0, 3.0], [INF, 1.0, 2.0], [NAN, 1.0, 2.0], [-INF, -INF, -INF], [-INF, 1.0, 2.0],
                         [INF, INF, 1.0], [-INF, 0.0, INF]], np.float32)


@pytest.mark.parametrize("fn", [
    lambda t, a: t.nn.functional.softmax(a, 1), lambda t, a: a.softmax(-1), lambda t, a: t.softmax(a, 0),
    lambda t, a: t.nn.functional.softmin(a, 1), lambda t, a: t.nn.functional.log_softmax(a, 1),
], ids=["softmax", "Tensor.softmax", "softmax-dim0", "softmin", "log_softmax"])
def test_softmax_of_slices_holding_nan_or_inf(fn):
    """A slice holding NaN or +inf is NaN throughout in PyTorch; MindSpore's kernel gave its other
    elements 0 (a slice of -inf among numbers is a mask and stays one)."""
    compare(fn, SOFTMAX_ROWS)


ACT = np.array([NAN, -INF, INF, 0.0, 6.0, -1.0, 1.0, 0.5, -0.5, 0.3, 7.0, 3.0], np.float32)


@pytest.mark.parametrize("fn", [
    lambda t, a: t.nn.functional.relu(a), lambda t, a: t.nn.functional.relu6(a), lambda t, a: t.nn.functional.hardtanh(a),
    lambda t, a: t.nn.functional.hardtanh(a, -0.5, 3.0), lambda t, a: t.nn.functional.threshold(a, 0.5, -2.0),
    lambda t, a: t.nn.functional.hardshrink(a), lambda t, a: t.nn.functional.softshrink(a, 0.5),
    lambda t, a: t.nn.functional.relu6(a * 1, inplace=True), lambda t, a: t.nn.functional.hardtanh(a * 1, inplace=True),
], ids=["relu", "relu6", "hardtanh", "hardtanh-bounds", "threshold", "hardshrink", "softshrink", "relu6-inplace",
        "hardtanh-inplace"])
def test_activations_at_nan_inf_and_their_bounds(fn):
    """NaN stays NaN and passes the gradient (PyTorch's masks are ``x <= threshold`` and the
    like: NaN fails them); hardtanh / relu6 pass no gradient at their bounds (relu6'(0) = 0:
    msnb's clamp-based gradient passed it)."""
    compare(fn, ACT)


def test_copy_into_a_tensor_holding_inf_or_nan_keeps_the_copied_values():
    """``copy_`` into a tensor that autograd tracks gave its old value a zero gradient by adding
    ``old * 0``: an infinite or NaN old value made the copy NaN (relu6(inplace=True) of -inf)."""
    old = np.array([NAN, -INF, INF, 1.0], np.float32)
    new = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    compare(lambda t, a, b: (a * 1).copy_(b), old, new)
    compare(lambda t, a, b: (a * 2).copy_(b[:1]) * a, old, new)
