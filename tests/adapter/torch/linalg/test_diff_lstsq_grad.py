"""Differential tests of ``torch.linalg.lstsq`` gradients against real PyTorch:
solution and residuals of every driver for under-, exactly- and
over-determined full-rank systems, batched; the residuals are on the graph
(they require grad) even where PyTorch returns them empty, as the OpInfo
``grad_oriented`` variant checks."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(5)
NAMES = registered("torch.linalg.lstsq")
CASES = []


def _well(shape):
    """A well-conditioned random matrix (singular values in [1, 2])."""
    a = rng.standard_normal(shape)
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    s = np.linspace(1.0, 2.0, min(shape[-2:]))
    return (u * s[..., None, :]) @ vh


for _driver in ("gels", "gelsy", "gelss", "gelsd"):
    for _m in (2, 3, 5):
        for _batch in ((), (2,)):
            _a = _well(_batch + (_m, 3))
            _b = rng.standard_normal(_batch + (_m, 2))
            CASES.append(case(f"lstsq_grad[{_driver},m={_m},batch={len(_batch)}]", NAMES,
                              lambda t, a, b, _d=_driver: t.linalg.lstsq(a, b, driver=_d)[:2], _a, _b,
                              rtol=1e-6, atol=1e-8))
CASES.append(case("lstsq_grad_vector_rhs[float32]", NAMES, lambda t, a, b: t.linalg.lstsq(a, b).solution,
                  _well((4, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32), rtol=1e-4, atol=1e-5))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_lstsq_grad(c):
    run_case(c)


def test_empty_residuals_require_grad():
    """An empty residuals tensor is still an output of the graph, as in PyTorch."""
    import msnb.adapter.torch as mt
    a = mt.tensor(_well((3, 3)), requires_grad=True)
    res = mt.linalg.lstsq(a, mt.tensor(rng.standard_normal((3, 1)))).residuals
    assert tuple(res.shape) == (0,) and res.requires_grad
    without = mt.linalg.lstsq(a.detach(), mt.tensor(rng.standard_normal((3, 1)))).residuals
    assert not without.requires_grad
