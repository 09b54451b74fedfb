"""Differential tests of the LU family (``linalg.lu_factor`` / ``lu_factor_ex`` / ``lu`` /
``lu_solve``, ``torch.lu``, ``lu_unpack``, also with empty pivots) and the Householder products (``linalg.householder_product`` /
``orgqr`` / ``ormqr``) against real PyTorch: LAPACK's pivots, the factors, and first-order
gradients for square, tall, wide and batched matrices; singular matrices (zero pivots, ``info``,
PyTorch's error)."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(21)
SQ = rng.standard_normal((2, 4, 4))
TALL = rng.standard_normal((5, 3))
WIDE = rng.standard_normal((3, 5))
RHS = rng.standard_normal((2, 4, 2))
SING = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 0.0]])
TOL = dict(rtol=1e-4, atol=1e-5)

CASES = []


def add(id, names, fn, *arrays, dtypes=(np.float32,), **opts):
    for dt in dtypes:
        CASES.append(case(f"{id}[{np.dtype(dt).name}]", names, fn, *(a.astype(dt) for a in arrays),
                          **{**TOL, **opts}))


for _k, _a in {"square": SQ, "tall": TALL, "wide": WIDE}.items():
    add(f"lu_factor[{_k}]", registered("torch.linalg.lu_factor"), lambda t, a: t.linalg.lu_factor(a), _a,
        dtypes=(np.float32, np.float64))
    add(f"lu_factor_ex[{_k}]", registered("torch.linalg.lu_factor_ex"), lambda t, a: t.linalg.lu_factor_ex(a), _a)
    add(f"linalg.lu[{_k}]", registered("torch.linalg.lu"), lambda t, a: t.linalg.lu(a), _a)
    add(f"torch.lu[{_k}]", registered("torch.lu", "torch.Tensor.lu"), lambda t, a: a.lu(get_infos=True), _a)
add("lu_factor_ex[singular]", registered("torch.linalg.lu_factor_ex"), lambda t, a: t.linalg.lu_factor_ex(a), SING,
    grad=False)
add("lu_factor[singular]", registered("torch.linalg.lu_factor"), lambda t, a: t.linalg.lu_factor(a), SING[None],
    kind="raises")
for _left in (True, False):
    for _adj in (True, False):
        add(f"lu_solve[left={_left},adjoint={_adj}]", registered("torch.linalg.lu_solve"),
            lambda t, a, b, lf=_left, ad=_adj: t.linalg.lu_solve(*t.linalg.lu_factor(a), b if lf else b.mT,
                                                                 left=lf, adjoint=ad), SQ, RHS)
# empty pivots: a 0 x 0 matrix's and an empty batch's (PyTorch's own lu_solve samples)
for _k, (_a, _b) in {"0x0": ((0, 0), (0, 4)), "batch0": ((0, 3, 3), (0, 3, 2)),
                     "batch2x0": ((2, 0, 0), (2, 0, 1))}.items():
    add(f"lu_solve[empty {_k}]", registered("torch.lu_solve", "torch.Tensor.lu_solve"),
        lambda t, a, b: (t.lu_solve(b, *t.linalg.lu_factor(a)), b.lu_solve(*t.linalg.lu_factor(a))),
        rng.standard_normal(_a), rng.standard_normal(_b), dtypes=(np.float32, np.float64))
    add(f"lu_unpack[empty {_k}]", registered("torch.lu_unpack"), lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a)),
        rng.standard_normal(_a))
_QR = rng.standard_normal((2, 5, 3))
_TAU = rng.uniform(0.2, 1.5, (2, 3))
add("householder_product", registered("torch.linalg.householder_product", "torch.orgqr", "torch.Tensor.orgqr"),
    lambda t, a, tau: (t.linalg.householder_product(a, tau), t.orgqr(a, tau[..., :2]), a.orgqr(tau)), _QR, _TAU)
for _left in (True, False):
    for _tr in (True, False):
        add(f"ormqr[left={_left},transpose={_tr}]", registered("torch.ormqr", "torch.Tensor.ormqr"),
            lambda t, a, tau, c, lf=_left, tr=_tr: a.ormqr(tau, c if lf else c.mT, left=lf, transpose=tr),
            _QR, _TAU, rng.standard_normal((2, 5, 4)))
for _k, _shape in {"0x0": (0, 0), "2x0x3": (2, 0, 3), "batch0": (0, 3, 2)}.items():
    add(f"geqrf[empty {_k}]", registered("torch.geqrf"), lambda t, a: t.geqrf(a), rng.standard_normal(_shape),
        grad=False)
add("ormqr[geqrf]", registered("torch.ormqr"),
    lambda t, a, c: t.ormqr(*t.geqrf(a), c), _QR, rng.standard_normal((2, 5, 2)), grad=False)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_lu_householder(c):
    run_case(c)
