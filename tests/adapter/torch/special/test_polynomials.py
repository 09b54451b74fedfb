"""The orthogonal polynomials of torch.special against real PyTorch: integer and
tensor degrees (negative, small, and large enough for PyTorch's trigonometric
forms), the edges x = +-1 and 0, and points outside [-1, 1]."""

import numpy as np
import pytest

from ..harness import mt, real

NAMES = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p"]
X = np.concatenate([np.linspace(-1.5, 1.5, 13), [-1.0, 0.0, 1.0, 0.5]]).astype(np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_polynomial_matches_pytorch(name):
    for n in (-1, 0, 1, 2, 5, 9, 12):
        r = getattr(real.special, name)(real.tensor(X), n).numpy()
        m = getattr(mt.special, name)(mt.tensor(X), n).numpy()
        np.testing.assert_allclose(m, r, rtol=1e-4, atol=1e-5, equal_nan=True, err_msg=f"{name} n={n}")
    nt = np.arange(len(X)) % 11
    r = getattr(real.special, name)(real.tensor(X), real.tensor(nt))
    m = getattr(mt.special, name)(mt.tensor(X), mt.tensor(nt))
    assert str(m.dtype) == str(r.dtype)
    np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-4, atol=1e-5, equal_nan=True)
