"""torch.masked against real PyTorch, including fully masked-out rows (where each
op's identity decides the answer: 0, 1, -inf, +inf or NaN) and gradients."""

import numpy as np
import pytest

from ..harness import compare, mt, real

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
MASK = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
TOL = dict(rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,kw", [
    ("sum", {"dim": 1}), ("sum", {}), ("prod", {"dim": 1}), ("amax", {"dim": 1}), ("amin", {"dim": 0}),
    ("mean", {"dim": 1}), ("logsumexp", {"dim": 1}), ("norm", {"ord": 2.0, "dim": 1}), ("var", {"dim": 1}),
    ("std", {"dim": 1, "unbiased": False}), ("softmax", {"dim": 1}), ("log_softmax", {"dim": 1}),
    ("softmin", {"dim": 1}), ("cumsum", {"dim": 1}), ("cumprod", {"dim": 1}), ("median", {"dim": 1}),
    ("normalize", {"ord": 2.0, "dim": 1}),
])
def test_masked_op_matches_pytorch(name, kw):
    compare(lambda t, x: getattr(t.masked, name)(x, mask=t.tensor(MASK), **kw), X, **TOL)


def test_argmax_argmin_and_broadcast_mask():
    compare(lambda t, x: (t.masked.argmax(x, 1, mask=t.tensor(MASK[0])),
                          t.masked.argmin(x, 1, keepdim=True, mask=t.tensor(MASK[0]))), X, **TOL)


def test_logaddexp_masks_each_operand():
    y = rng.standard_normal((3, 4)).astype(np.float32)
    compare(lambda t, a, b: t.masked.logaddexp(a, b, input_mask=t.tensor(MASK), other_mask=t.tensor(MASK[::-1].copy())),
            X, y, **TOL)


def test_a_mask_with_more_dims_than_the_input_raises_like_pytorch():
    with pytest.raises(IndexError):
        real.masked.sum(real.tensor(X[0]), mask=real.tensor(MASK))
    with pytest.raises(IndexError):
        mt.masked.sum(mt.tensor(X[0]), mask=mt.tensor(MASK))


def test_every_public_torch_masked_name_exists():
    """MaskedTensor was the last missing name (its behaviour: test_diff_maskedtensor.py)."""
    assert [n for n in dir(real.masked) if not n.startswith("_") and not hasattr(mt.masked, n)] == []
