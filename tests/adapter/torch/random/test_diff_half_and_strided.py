"""float16 / bfloat16 draws and in-place samplers on non-contiguous views match
PyTorch 2.13 bit for bit.

Half types compute in float (PyTorch's accumulate type): uniforms are float's
24-bit ones rounded to the dtype, normals the float Box-Muller blocks drawn
block by block, so a ragged end (n % 16 != 0) consumes fewer draws than
float32's.  An in-place sampler fills a view in storage order (TensorIterator's),
and ``normal_`` of a non-contiguous tensor takes the one-at-a-time double path
at any size instead of the 16-element blocks."""

import pytest
import torch as real

import msnb.adapter.torch as mt

from .test_diff_samplers import same

HALF = ["float16", "bfloat16"]


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("n", [5, 15, 16, 17, 20, 33, 48, 1000])
def test_half_normals_and_uniforms(dtype, n):
    same(lambda t: t.empty(n, dtype=getattr(t, dtype)).normal_(0.5, 2.0).float(), 3)
    same(lambda t: t.randn(n, dtype=getattr(t, dtype)).float(), 4)
    same(lambda t: t.rand(n, dtype=getattr(t, dtype)).float(), 5)
    same(lambda t: t.empty(n, dtype=getattr(t, dtype)).uniform_(-2.0, 3.0).float(), 6)


@pytest.mark.parametrize("dtype", HALF)
def test_half_uniform_rounded_up_to_the_bound_becomes_the_lower_bound(dtype):
    """In [1000, 1001) most float values round to 1000 or 1001 in the half types; 1001 is PyTorch's clamp case."""
    same(lambda t: t.empty(4000, dtype=getattr(t, dtype)).uniform_(1000.0, 1001.0).float(), 7)


VIEWS = {
    "transposed": lambda t, d: t.empty(4, 8, dtype=d).t(),
    "transposed_small": lambda t, d: t.empty(3, 3, dtype=d).t(),
    "every_other_row": lambda t, d: t.empty(8, 6, dtype=d)[::2],
    "every_other_column": lambda t, d: t.empty(6, 8, dtype=d)[:, ::2],
    "one_column": lambda t, d: t.empty(20, 3, dtype=d)[:, 1],
    "permuted": lambda t, d: t.empty(2, 3, 5, dtype=d).permute(2, 0, 1),
    "sliced_then_transposed": lambda t, d: t.empty(6, 8, dtype=d)[1:5, ::2].t(),
    "view_of_a_view": lambda t, d: t.empty(4, 6, 2, dtype=d)[:, ::2].transpose(0, 2)[1],
    "contiguous_rows": lambda t, d: t.empty(8, 6, dtype=d)[2:6],
}
SAMPLERS = {
    "normal_": lambda x, t: x.normal_(0.1, 1.5),
    "uniform_": lambda x, t: x.uniform_(-1.0, 2.0),
    "random_": lambda x, t: x.random_(0, 50),
    "exponential_": lambda x, t: x.exponential_(),
    "bernoulli_": lambda x, t: x.bernoulli_(0.3),
    "bernoulli_probs": lambda x, t: x.bernoulli_(t.linspace(0, 1, x.numel()).reshape(x.shape)),
    "geometric_": lambda x, t: x.geometric_(0.3),
    "log_normal_": lambda x, t: x.log_normal_(),
    "cauchy_": lambda x, t: x.cauchy_(),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_in_place_samplers_fill_views_in_storage_order(view, dtype):
    for sampler in SAMPLERS.values():
        same(lambda t: sampler(VIEWS[view](t, getattr(t, dtype)), t).float(), 5)


def test_a_view_filled_in_place_writes_its_base():
    def run(t):
        base = t.zeros(4, 8)
        base.t().normal_()
        base[:, ::2].uniform_()
        return base
    same(run, 1)
    assert mt.zeros(4, 8).t().is_contiguous() is real.zeros(4, 8).t().is_contiguous() is False
