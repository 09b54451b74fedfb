"""``torch.quantile`` / ``nanquantile`` with linear interpolation are differentiable in ``q``
too (the interpolation weight is ``q * (n - 1) - floor(q * (n - 1))``): PyTorch's OpInfo
samples pass a ``q`` tensor that requires grad, and msnb gave it no gradient (12 of 60
samples of each op failed in the full OpInfo replay)."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import compare

X = np.random.default_rng(3).standard_normal((3, 7)).astype(np.float32)
X_NAN = X.copy()
X_NAN[1, 2] = np.nan


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True)])
def test_gradient_reaches_q(op, dim, keepdim):
    q = np.array([0.1, 0.5, 0.93], np.float32)
    compare(lambda t, x, q: getattr(t, op)(x, q, dim=dim, keepdim=keepdim), X_NAN if op == "nanquantile" else X,
            q, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("interpolation", ["lower", "higher", "nearest", "midpoint"])
def test_other_interpolations_give_q_no_gradient(interpolation):
    """Their weights do not depend on ``q``: no gradient reaches it, in both libraries."""
    compare(lambda t, x, q: t.quantile(x, q, dim=1, interpolation=interpolation), X,
            np.array([0.25, 0.8], np.float32))
