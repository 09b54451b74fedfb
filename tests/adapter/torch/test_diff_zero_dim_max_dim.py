"""``torch.max(x, dim)`` / ``min`` of a 0-d tensor: PyTorch returns 0-d values and indices; msnb
returned values of shape (1,) (PyTorch's OpInfo sample ``max.reduction_with_dim`` on a 0-d
input, every dtype)."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import compare


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (0, True), (-1, False)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_zero_dim_input(name, dim, keepdim, dtype):
    compare(lambda t, x: tuple(getattr(t, name)(x, dim, keepdim)), np.array(3, dtype))
    compare(lambda t, x: tuple(getattr(x, name)(dim=dim, keepdim=keepdim)), np.array(3, dtype))
