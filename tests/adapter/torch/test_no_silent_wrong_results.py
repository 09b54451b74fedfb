"""Regression tests for results msnb used to get silently wrong (issue 12, point 4),
each checked against real PyTorch: values where PyTorch computes, the same
exception type where PyTorch raises."""

import numpy as np
import pytest

from .harness import compare, compare_behaviour, compare_raises, mt, real


@pytest.mark.parametrize("fn", [
    lambda t: t.matmul(t.ones(5, 0), t.ones(0, 10)),
    lambda t: t.addmm(t.ones(5, 10), t.ones(5, 0), t.ones(0, 10)),
    lambda t: t.bmm(t.ones(2, 5, 0), t.ones(2, 0, 10)),
    lambda t: t.nn.functional.linear(t.ones(3, 0), t.ones(4, 0), t.ones(4)),
], ids=["matmul", "addmm", "bmm", "linear"])
def test_products_with_an_empty_inner_dimension_are_zeros(fn):
    """MindSpore returned uninitialised memory (values up to 22.3) here."""
    for _ in range(3):
        compare_behaviour(fn)


def test_tanh_is_accurate_and_its_gradient_too():
    """MindSpore's float32 tanh gave tanh(5) = 1.0000098 and a gradient 10x off at |x| > 4."""
    x = np.linspace(-9, 9, 401).astype(np.float32)
    compare(lambda t, a: t.tanh(a), x, rtol=1e-6, atol=1e-7)


def test_relu_keeps_nan():
    compare(lambda t, a: t.relu(a), np.array([np.nan, -1.0, 2.0], np.float32), grad=False)
    compare(lambda t, a: t.nn.functional.relu(a), np.array([np.nan, 0.5], np.float32), grad=False)


def test_argmax_and_argmin_return_the_nan():
    a = np.array([[1.0, np.nan, 3.0], [4.0, 2.0, np.nan]], np.float32)
    for f in (lambda t, x: t.argmax(x), lambda t, x: t.argmax(x, 1), lambda t, x: t.argmin(x, 1, True)):
        compare(f, a, grad=False)


def test_any_and_all_of_empty_tensors():
    for f in (lambda t: t.zeros(0).any(), lambda t: t.zeros(0).all(), lambda t: t.zeros(0, 3).any(1),
              lambda t: t.zeros(2, 0).all(1, keepdim=True)):
        for _ in range(3):
            compare_behaviour(f)


def test_var_mean_with_positional_unbiased():
    compare(lambda t, a: t.var_mean(a, True), np.arange(12, dtype=np.float32).reshape(3, 4))
    compare(lambda t, a: t.std_mean(a, False), np.arange(12, dtype=np.float32).reshape(3, 4))


def test_flip_of_an_empty_tensor():
    """MindSpore's kernel killed the interpreter with SIGFPE."""
    compare_behaviour(lambda t: t.flip(t.zeros(0, 3), [0]))
    compare_behaviour(lambda t: t.flip(t.zeros(2, 0), dims=(1,)))


def test_zero_dim_index_ops():
    compare_behaviour(lambda t: t.index_select(t.tensor(3.0), 0, t.tensor([0])))
    compare_behaviour(lambda t: t.gather(t.tensor(3.0), 0, t.tensor(0)))
    compare_behaviour(lambda t: t.nonzero(t.tensor(3.0)))


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_integer_division_by_zero_raises(op):
    compare_raises(lambda t, a, b: getattr(t, op)(a, b), np.array([5, 3]), np.array([1, 0]))
    compare_behaviour(lambda t: t.div(t.tensor([5]), t.tensor([0]), rounding_mode="floor"))


@pytest.mark.parametrize("fn", [
    lambda t: t.tensor([300], dtype=t.uint8),
    lambda t: t.tensor([2 ** 63]),
    lambda t: t.tensor([2 ** 40], dtype=t.int32),
    lambda t: t.tensor([-1], dtype=t.uint8),
    lambda t: t.tensor([-2 ** 63]),
], ids=["uint8-300", "2**63", "int32-2**40", "uint8-minus-1", "int64-min"])
def test_integer_literals_out_of_range(fn):
    compare_behaviour(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.zeros(3).scatter(0, t.tensor([5]), t.ones(1)),
    lambda t: t.zeros(3).scatter_add(0, t.tensor([-1]), t.ones(1)),
    lambda t: t.zeros(3).index_add(0, t.tensor([3]), t.ones(1)),
    lambda t: t.gather(t.zeros(3), 0, t.tensor([3])),
    lambda t: t.gather(t.zeros(3), 0, t.tensor([-1])),
    lambda t: t.index_select(t.zeros(3), 0, t.tensor([3])),
    lambda t: t.index_select(t.zeros(3), 0, t.tensor([-1])),
    lambda t: t.nn.functional.embedding(t.tensor([3]), t.zeros(3, 2)),
    lambda t: t.nn.functional.one_hot(t.tensor([3]), 3),
    lambda t: t.nn.functional.one_hot(t.tensor([-1]), 3),
], ids=["scatter", "scatter_add-neg", "index_add", "gather", "gather-neg", "index_select", "index_select-neg",
        "embedding", "one_hot", "one_hot-neg"])
def test_out_of_bounds_indices_raise_as_pytorch(fn):
    compare_behaviour(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.ones(2, 3).sum(5), lambda t: t.ones(2, 3).softmax(2), lambda t: t.ones(2, 3).log_softmax(-3),
    lambda t: t.stack([t.ones(2), t.ones(2)], 3), lambda t: t.ones(2, 3).permute(0, 2),
    lambda t: t.ones(2, 3).flatten(0, 4),
], ids=["sum", "softmax", "log_softmax", "stack", "permute", "flatten"])
def test_out_of_range_dim_raises_index_error(fn):
    with pytest.raises(IndexError):
        fn(real)
    with pytest.raises(IndexError):
        fn(mt)


@pytest.mark.parametrize("args", [(3, 1, 1, True, False, 2), (3, 1, (1,), False, False, 2),
                                  ((4, 4), (2, 3), 1, True, False, 2)])
def test_avg_pool2d_gradient_with_divisor_override(args):
    """MindSpore's backward ignored divisor_override when count_include_pad=False."""
    x = np.random.default_rng(0).standard_normal((1, 3, 9, 9)).astype(np.float32)
    compare(lambda t, a: t.nn.functional.avg_pool2d(a, *args), x, rtol=1e-4, atol=1e-5)


def test_cosine_similarity_broadcasts_before_reducing():
    a = np.array([[1.0, 2.0, 3.0]], np.float32)
    b = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
    compare(lambda t, x, y: t.nn.functional.cosine_similarity(x, y, dim=0), a, b, rtol=1e-5, atol=1e-6)
    compare(lambda t, x, y: t.nn.functional.cosine_similarity(x, y, dim=1), a, b, rtol=1e-5, atol=1e-6)


def test_prelu_of_a_zero_dim_input_keeps_its_shape():
    compare(lambda t, x, w: t.nn.functional.prelu(x, w), np.array(-2.0, np.float32), np.array([0.25], np.float32))


def test_advanced_index_write_over_infinity():
    """The scatter behind ``x[idx] = v`` computed ``x * 0 + v``: a written slot that held inf became NaN."""
    def write(t):
        x = t.tensor([float("inf"), 1.0, float("-inf")])
        x[t.tensor([0, 2])] = t.tensor([2.0, 3.0])
        return x
    compare_behaviour(write)
    compare_behaviour(lambda t: t.tensor([float("inf"), 0.0]).index_put((t.tensor([0]),), t.tensor(5.0)))


@pytest.mark.parametrize("fn", [
    lambda t: t.tril(t.zeros(3, 0)), lambda t: t.triu(t.zeros(0, 2, 0), 1),
    lambda t: t.roll(t.zeros(0, 3), 1, 0), lambda t: t.roll(t.zeros(2, 0), 1),
    lambda t: t.median(t.tensor(2.0), 0), lambda t: t.take(t.arange(6.0).reshape(2, 3), t.tensor([-1, -6, 2])),
    lambda t: t.take(t.arange(6.0), t.tensor([6])), lambda t: t.index_add(t.tensor(1.0), 0, t.tensor([0]), t.tensor(2.0)),
    lambda t: t.broadcast_shapes((5, 1), 3), lambda t: t.ones(2, 1, 4).diag_embed(1, 0, 2),
], ids=["tril-empty", "triu-empty", "roll-empty", "roll-flat-empty", "median-0d", "take-negative",
        "take-out-of-range", "index_add-0d", "broadcast_shapes-Size", "diag_embed-offset-dims"])
def test_empty_zero_dim_and_negative_index_cases(fn):
    """Empty and 0-d inputs and negative indices where PyTorch allows them (issue 12, point 5)."""
    compare_behaviour(fn)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_median_of_a_slice_with_nan_is_nan_at_the_first_nan(dim):
    """msnb's median sorted NaN last and returned the middle number (3.0 for [1, nan, 3])."""
    a = np.array([[1.0, np.nan, 3.0, np.nan], [4.0, 2.0, 5.0, 1.0], [np.nan, 0.5, 7.0, 2.0]], np.float32)
    if dim is None:
        compare(lambda t, x: t.median(x), a)
    else:
        compare(lambda t, x: t.median(x, dim).values, a)
        compare(lambda t, x: t.median(x, dim, keepdim=True).indices, a, grad=False)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "int32", "int64", "uint8", "bool"])
def test_median_of_an_empty_tensor_is_nan_cast_to_its_dtype(dtype):
    """msnb raised an IndexError from its own indexing; PyTorch returns NaN cast to the dtype."""
    compare_behaviour(lambda t: t.median(t.ones(0, dtype=getattr(t, dtype))))


def test_median_along_a_dim_of_an_empty_tensor():
    compare_behaviour(lambda t: t.median(t.ones(0, 3), 1))
    compare_raises(lambda t: t.median(t.ones(2, 0), 1))
