"""Keyword arguments PyTorch accepts are accepted (issue 12, point 6)."""

import pytest

from .harness import compare_behaviour


@pytest.mark.parametrize("fn", [
    *[(lambda m: (lambda t: getattr(t.ones(2), m)(memory_format=t.contiguous_format)))(m)
      for m in ("float", "long", "double", "half", "bool", "int", "byte", "char", "short")],
    lambda t: t.ones(2).to("cpu", t.float64, non_blocking=False, copy=True, memory_format=t.preserve_format),
    lambda t: t.ones(2).to(dtype=t.int64, memory_format=t.preserve_format),
    lambda t: t.zeros(size=(2, 3)), lambda t: t.ones(size=[1, 2]), lambda t: t.empty(size=(2,)).shape,
    lambda t: t.repeat_interleave(t.tensor([1, 2]), t.tensor([1, 2]), output_size=3),
    lambda t: t.repeat_interleave(t.tensor([1, 2]), 2, dim=0, output_size=4),
    lambda t: t.repeat_interleave(t.tensor([1, 2])),
    lambda t: t.flip(t.arange(3), dims=[0]), lambda t: t.arange(6).reshape(2, 3).flip(dims=(0, 1)),
    lambda t: t.ones(2).type(t.LongTensor), lambda t: t.ones(2).type(t.DoubleTensor),
    lambda t: t.ones(2).type("torch.IntTensor"), lambda t: t.ones(2).type(t.int8), lambda t: t.ones(2).type(),
    lambda t: t.tensor([0.3, 0.7]).softmax(dim=0), lambda t: t.tensor([0.3, 0.7]).log_softmax(0),
], ids=[f"{m}-memory_format" for m in ("float", "long", "double", "half", "bool", "int", "byte", "char", "short")]
    + ["to-full", "to-dtype-kw", "zeros-size", "ones-size", "empty-size", "repeat_interleave-output_size",
       "repeat_interleave-int", "repeat_interleave-counts", "flip-dims", "method-flip-dims", "type-LongTensor",
       "type-DoubleTensor", "type-str", "type-dtype", "type-name", "softmax-method", "log_softmax-method"])
def test_keyword_forms(fn):
    compare_behaviour(fn)


_SIZE_KEYWORDS = {
    "rand-size": lambda t: t.rand(size=(2, 3)).shape, "randn-size": lambda t: t.randn(size=[4]).shape,
    "view-size": lambda t: t.arange(6).view(size=(3, 2)), "reshape-shape": lambda t: t.arange(6).reshape(shape=(2, 3)),
    "torch.reshape-shape": lambda t: t.reshape(t.arange(6), shape=(6,)),
    "permute-dims": lambda t: t.arange(6).reshape(2, 3).permute(dims=(1, 0)),
    "torch.permute-dims": lambda t: t.permute(t.arange(6).reshape(2, 3), dims=(1, 0)),
    "expand-size": lambda t: t.arange(3).expand(size=(2, 3)), "repeat-repeats": lambda t: t.arange(3).repeat(repeats=(2,)),
    "tile-dims": lambda t: t.tile(t.arange(3), dims=(2,)), "new_zeros-size": lambda t: t.ones(2).new_zeros(size=(3,)),
    "new_ones-size": lambda t: t.ones(2).new_ones(size=(1, 2)), "new_empty-size": lambda t: t.ones(2).new_empty(size=(3,)).shape,
    "view-size-and-varargs": lambda t: t.arange(6).view(3, 2, size=(3, 2)),
}


@pytest.mark.parametrize("name", sorted(_SIZE_KEYWORDS))
def test_sizes_as_keywords(name):
    """Methods and functions taking varargs sizes also take them as PyTorch's keyword (``size=``, ``dims=`` ...)."""
    compare_behaviour(_SIZE_KEYWORDS[name])
