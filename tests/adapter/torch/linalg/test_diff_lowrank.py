"""Differential tests of ``torch.svd_lowrank`` / ``torch.pca_lowrank`` against real PyTorch.

The factors of a randomized SVD are not unique (each singular pair may flip
sign, and the test matrix is random), so what is compared is what is well
defined: the reconstruction ``U diag(S) V^H``, the singular values, the
orthonormality of ``U`` and ``V``, shapes and dtypes, and the gradients of
those.  msnb's generator replays PyTorch's CPU mt19937 stream, so after the
same ``manual_seed`` both draw the same Gaussian test matrix: the results match
even where they depend on it (``q`` below the rank, ``niter=0``)."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(5)
LOWRANK = rng.standard_normal((7, 2)) @ rng.standard_normal((2, 5))  # rank 2, tall
WIDE = rng.standard_normal((2, 3, 2)) @ rng.standard_normal((2, 2, 6))  # batched rank 2, wide
FULL = rng.standard_normal((6, 5))  # full rank: a q=3 sketch depends on the test matrix
SHIFT = rng.standard_normal((6, 5))
ROW_SHIFT = rng.standard_normal((3, 6))  # broadcast over WIDE's batch
TOL = dict(rtol=1e-4, atol=1e-5)
SVD = registered("torch.svd_lowrank")
PCA = registered("torch.pca_lowrank")


def _well_defined(t, usv):
    U, S, V = usv
    n = S.shape[-1]
    eye = t.eye(n, dtype=U.dtype)
    return (U @ t.diag_embed(S) @ V.mH, S, (U.mH @ U - eye).abs().amax() < 1e-4,
            (V.mH @ V - eye).abs().amax() < 1e-4, tuple(U.shape), tuple(V.shape), U.dtype, S.dtype)


def _svd(**kw):
    def fn(t, a, *m):
        t.manual_seed(0)
        return _well_defined(t, t.svd_lowrank(a, M=m[0] if m else None, **kw))
    return fn


def _pca(**kw):
    def fn(t, a):
        t.manual_seed(0)
        return _well_defined(t, t.pca_lowrank(a, **kw))
    return fn


CASES = []
for dt in (np.float32, np.float64):
    d = np.dtype(dt).name
    CASES += [
        case(f"svd_exact_rank[{d}]", SVD, _svd(q=2), LOWRANK.astype(dt), **TOL),
        case(f"svd_wide_batched[{d}]", SVD, _svd(q=2), WIDE.astype(dt), **TOL),
        case(f"svd_default_q[{d}]", SVD, _svd(), FULL.astype(dt), **TOL),
        case(f"svd_sketch_q3[{d}]", SVD, _svd(q=3, niter=0), FULL.astype(dt), **TOL),
        case(f"svd_with_M[{d}]", SVD, _svd(q=3, niter=1), FULL.astype(dt), SHIFT.astype(dt), **TOL),
        case(f"svd_M_broadcast[{d}]", SVD, _svd(q=2), WIDE.astype(dt), ROW_SHIFT.astype(dt), **TOL),
        case(f"pca_centered[{d}]", PCA, _pca(q=2), LOWRANK.astype(dt), **TOL),
        case(f"pca_not_centered[{d}]", PCA, _pca(q=3, center=False), FULL.astype(dt), **TOL),
        # default q = 3 exceeds the centered rank 2: the sketch's QR has a (rounding-sized) zero pivot,
        # where the gradient is rounding noise in both libraries (PyTorch's samples avoid q > rank)
        case(f"pca_default_q_batched[{d}]", PCA, _pca(), WIDE.astype(dt), grad=False, **TOL),
        case(f"pca_default_q[{d}]", PCA, _pca(), FULL.astype(dt), **TOL),
    ]
_BAD = {
    "pca_q_too_big": lambda t: t.pca_lowrank(t.ones(3, 4), q=4),
    "pca_q_negative": lambda t: t.pca_lowrank(t.ones(3, 4), q=-1),
    "pca_niter_negative": lambda t: t.pca_lowrank(t.ones(3, 4), niter=-1),
    "svd_int_input": lambda t: t.svd_lowrank(t.ones(3, 4, dtype=t.int64), q=2),
}
for _id, _fn in _BAD.items():
    CASES.append(case(f"bad_input[{_id}]", SVD if _id.startswith("svd") else PCA, _fn, kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_lowrank(c):
    run_case(c)


def test_svd_lowrank_leaves_the_generator_where_pytorch_does():
    """Both draw one (n, q) Gaussian sketch: the next random number is the same afterwards."""
    import msnb.adapter.torch as mt
    import torch
    for lib in (torch, mt):
        lib.manual_seed(3)
        lib.svd_lowrank(lib.tensor(FULL), q=3)
    assert np.array_equal(torch.randn(4).numpy(), mt.randn(4).numpy())
