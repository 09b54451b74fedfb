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
