"""``maximum`` / ``minimum`` (and what is built on them: binary ``max`` / ``min``, ``logaddexp``,
``binary_cross_entropy_with_logits``) on operands whose broadcast is empty: MindSpore's CPU
kernels refused the empty output ("the dimension of output must not be 0") and one path
killed the interpreter; PyTorch returns the empty result, with empty gradients."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import compare

SHAPES = [((0, 3), (3,)), ((0,), (0,)), ((2, 0), (1, 0)), ((0, 1), (1, 4))]
OPS = {
    "maximum": lambda t, a, b: t.maximum(a, b),
    "minimum": lambda t, a, b: t.minimum(a, b),
    "max": lambda t, a, b: t.max(a, b),
    "Tensor.min": lambda t, a, b: a.min(b),
    "logaddexp": lambda t, a, b: t.logaddexp(a, b),
    "bce_with_logits": lambda t, a, b: t.nn.functional.binary_cross_entropy_with_logits(
        a, t.zeros_like(a), reduction="none"),
}


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_empty_broadcast(op, sa, sb):
    compare(OPS[op], np.zeros(sa, np.float32), np.ones(sb, np.float32))


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_empty_broadcast_other_dtypes(dtype):
    compare(lambda t, a, b: (t.maximum(a, b), t.minimum(b, a)), np.zeros((0, 2), dtype), np.ones((1, 2), dtype))
