"""torch.signal.windows against real PyTorch: every window, symmetric and periodic,
lengths 0, 1 and more, float32 / float64, and PyTorch's argument errors."""

import numpy as np
import pytest

from ..harness import mt, real

WINDOWS = [("hann", {}), ("hamming", {}), ("blackman", {}), ("bartlett", {}), ("nuttall", {}), ("cosine", {}),
           ("kaiser", {"beta": 5.0}), ("gaussian", {"std": 2.0}), ("exponential", {"tau": 2.0}),
           ("general_cosine", {"a": [0.5, 0.3, 0.2]}), ("general_hamming", {"alpha": 0.6})]


@pytest.mark.parametrize("name,kw", WINDOWS, ids=[w for w, _ in WINDOWS])
@pytest.mark.parametrize("sym", [True, False])
def test_window_matches_pytorch(name, kw, sym):
    for M in (0, 1, 2, 9):
        for dt in ("float32", "float64"):
            r = getattr(real.signal.windows, name)(M, sym=sym, dtype=getattr(real, dt), **kw)
            m = getattr(mt.signal.windows, name)(M, sym=sym, dtype=getattr(mt, dt), **kw)
            assert str(m.dtype) == str(r.dtype) and tuple(m.shape) == tuple(r.shape)
            np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-5, atol=1e-6, err_msg=f"{name} M={M} {dt}")


def test_window_argument_errors_are_pytorchs():
    for lib in (real, mt):
        with pytest.raises(ValueError):
            lib.signal.windows.hann(-1)
        with pytest.raises(ValueError):
            lib.signal.windows.gaussian(5, std=0.0)
        with pytest.raises(ValueError):
            lib.signal.windows.hann(5, dtype=lib.int64)
        with pytest.raises(ValueError):
            lib.signal.windows.exponential(5, center=1.0)  # a center needs sym=False
