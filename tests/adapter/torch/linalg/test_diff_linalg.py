"""Differential tests of ``torch.linalg`` inverses, solves, determinants and
decompositions (and their ``torch.*`` / ``Tensor`` spellings) against real
PyTorch: values, dtypes, shapes and first-order gradients, float32 and
float64, batched.  Singular vectors and eigenvectors are compared through
sign-invariant functions (``abs``, reconstructions): their signs are
LAPACK-build-defined and PyTorch's MKL build may pick other ones."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, real, registered, run_case

rng = np.random.default_rng(7)
SQ = rng.standard_normal((2, 4, 4)) + 3 * np.eye(4)  # well conditioned, batched
RHS = rng.standard_normal((2, 4, 3))
TALL = rng.standard_normal((2, 5, 3))
WIDE = rng.standard_normal((2, 3, 5))
SPD = SQ @ np.swapaxes(SQ, -1, -2)
SYM = (SQ + np.swapaxes(SQ, -1, -2)) / 2 + 2 * np.eye(4)
SING = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
# singular with a zero row: elimination keeps the row exactly zero, so det is exactly 0 with any
# LAPACK (SING's det is 0 or +-6.7e-16 depending on the host's BLAS, and PyTorch's gradient is 0
# only for an exact 0: the cofactor matrix otherwise)
ZERO_ROW = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
TOL = dict(rtol=1e-4, atol=1e-5)

CASES = []


def add(id, names, fn, *arrays, **opts):
    for dt in (np.float32, np.float64):
        CASES.append(case(f"{id}[{np.dtype(dt).name}]", names, fn, *(a.astype(dt) for a in arrays), **{**TOL, **opts}))


def names(*qual):
    return registered(*qual)


add("inv", names("torch.linalg.inv", "torch.inverse", "torch.Tensor.inverse"),
    lambda t, a: (t.linalg.inv(a), t.inverse(a[0]), a.inverse()), SQ)
add("inv_ex", names("torch.linalg.inv_ex"), lambda t, a: tuple(t.linalg.inv_ex(a)), SQ)
add("det", names("torch.linalg.det", "torch.det", "torch.Tensor.det"),
    lambda t, a: (t.linalg.det(a), t.det(a[0]), a.det()), SQ)
add("det_singular_and_1x1", names("torch.linalg.det"),
    lambda t, a, b: (t.linalg.det(a), t.linalg.det(b)), ZERO_ROW, np.array([[[3.0]], [[-2.0]]]))
add("slogdet", names("torch.linalg.slogdet", "torch.slogdet", "torch.Tensor.slogdet"),
    lambda t, a: (tuple(t.linalg.slogdet(a)), tuple(t.slogdet(-a)), a.slogdet().logabsdet), SQ)
add("logdet", names("torch.logdet", "torch.Tensor.logdet"), lambda t, a: (t.logdet(a), a.logdet()), SPD)
add("solve", names("torch.linalg.solve"),
    lambda t, a, b: (t.linalg.solve(a, b), t.linalg.solve(a, b[..., 0]), t.linalg.solve(a[0], b),
                     t.linalg.solve(a, b.mT, left=False)), SQ, RHS[:, :4, :].repeat(2, 0)[:2])
add("solve_ex", names("torch.linalg.solve_ex"), lambda t, a, b: tuple(t.linalg.solve_ex(a, b)), SQ, RHS)
add("solve_triangular", names("torch.linalg.solve_triangular"),
    lambda t, a, b: (t.linalg.solve_triangular(a.triu(), b, upper=True),
                     t.linalg.solve_triangular(a.tril(), b.mT, upper=False, left=False, unitriangular=True)),
    SQ, RHS)
add("cholesky", names("torch.linalg.cholesky", "torch.cholesky", "torch.Tensor.cholesky"),
    lambda t, a: (t.linalg.cholesky(a), t.linalg.cholesky(a, upper=True), t.cholesky(a[0]), a.cholesky(upper=True)),
    SPD)
add("cholesky_ex", names("torch.linalg.cholesky_ex"), lambda t, a: tuple(t.linalg.cholesky_ex(a)), SPD)
add("qr", names("torch.linalg.qr", "torch.qr", "torch.Tensor.qr"),
    lambda t, a, w, s: (tuple(t.linalg.qr(a)), tuple(t.linalg.qr(w)), tuple(t.linalg.qr(s, mode="complete")),
                        t.linalg.qr(a, mode="r")[1].detach(), tuple(t.qr(a[0])), a.qr().R), TALL, WIDE, SQ)
add("qr_empty", names("torch.linalg.qr"), lambda t, a: tuple(t.linalg.qr(a)), np.zeros((5, 0)))
add("cholesky_svd_empty", names("torch.linalg.cholesky", "torch.linalg.svdvals"),
    lambda t, a: (t.linalg.cholesky(a), t.linalg.svdvals(a)), np.zeros((2, 0, 0)))
add("vander_0d", names("torch.linalg.vander"), lambda t, x: t.linalg.vander(x, N=3), np.array(1.5))
add("qr_r_backward_raises", names("torch.linalg.qr"),
    lambda t, a: _raises_in_backward(t, lambda: t.linalg.qr(a, mode="r")[1]), TALL, kind="custom_fn")


def _raises_in_backward(t, make):
    y = make()
    try:
        y.sum().backward()
    except RuntimeError as e:
        return str(e)[:60]
    return "no error"


def _svd_invariant(U, S, Vh):
    return U.abs(), S, Vh.abs(), (U[..., :S.shape[-1]] * S.unsqueeze(-2)) @ Vh[..., :S.shape[-1], :]


add("svd", names("torch.linalg.svd"),
    lambda t, a, w: (_svd_invariant(*t.linalg.svd(a, full_matrices=False)),
                     _svd_invariant(*t.linalg.svd(w, full_matrices=False)),
                     _svd_invariant(*t.linalg.svd(a))[1:]), TALL, WIDE)
add("torch_svd", names("torch.svd", "torch.Tensor.svd"),
    lambda t, a: (t.svd(a).S, t.svd(a).V.abs(), a.svd(some=False).U.abs()[..., :3], t.svd(a, compute_uv=False)),
    TALL)
add("svdvals", names("torch.linalg.svdvals"), lambda t, a, w: (t.linalg.svdvals(a), t.linalg.svdvals(w)), TALL, WIDE)
add("eigh", names("torch.linalg.eigh"),
    lambda t, a: (lambda w, v: (w, v.abs(), (v * w.unsqueeze(-2)) @ v.mT))(*t.linalg.eigh(a)), SPD)
add("eigh_upper", names("torch.linalg.eigh"),
    lambda t, a: (lambda w, v: (w, v.abs()))(*t.linalg.eigh(a, UPLO="U")), SQ)
add("eigvalsh", names("torch.linalg.eigvalsh"), lambda t, a: (t.linalg.eigvalsh(a), t.linalg.eigvalsh(a, "U")), SQ)
add("eigvals", names("torch.linalg.eigvals"),
    lambda t, a: (t.view_as_real(t.sort(t.linalg.eigvals(a).real)[0] + 0j), t.linalg.eigvals(a).abs().sum(-1)), SPD)
add("pinv", names("torch.linalg.pinv", "torch.pinverse", "torch.Tensor.pinverse"),
    lambda t, a, w, s: (t.linalg.pinv(a), t.linalg.pinv(w), t.linalg.pinv(s, hermitian=True), t.pinverse(a[0]),
                        a.pinverse(), t.linalg.pinv(a, atol=0.5), t.linalg.pinv(a, rtol=0.3)), TALL, WIDE, SYM)
add("lstsq", names("torch.linalg.lstsq"),
    lambda t, a, b: (tuple(t.linalg.lstsq(a, b)), tuple(t.linalg.lstsq(a, b, driver="gelsd")),
                     t.linalg.lstsq(a[0], b[0, :, 0]).solution), TALL, rng.standard_normal((2, 5, 2)))
add("matrix_rank", names("torch.linalg.matrix_rank"),
    lambda t, a, b: (t.linalg.matrix_rank(a), t.linalg.matrix_rank(b), t.linalg.matrix_rank(b, hermitian=True),
                     t.linalg.matrix_rank(b, atol=1.0, rtol=0.0)), SING, SPD, grad=False)
add("matrix_exp", names("torch.linalg.matrix_exp", "torch.matrix_exp", "torch.Tensor.matrix_exp"),
    lambda t, a: (t.linalg.matrix_exp(a * 0.3), t.matrix_exp(a[0] * 0.1), (a * 0.2).matrix_exp()), SQ)
add("matrix_power", names("torch.linalg.matrix_power", "torch.matrix_power", "torch.Tensor.matrix_power"),
    lambda t, a: (t.linalg.matrix_power(a, 3), t.linalg.matrix_power(a, -2), t.linalg.matrix_power(a, 0),
                  t.matrix_power(a, 1), a.matrix_power(2)), SQ)
add("multi_dot", names("torch.linalg.multi_dot", "torch.chain_matmul"),
    lambda t, a, b, v: (t.linalg.multi_dot([a, b, a]), t.linalg.multi_dot([v, a, b]), t.chain_matmul(a, b)),
    TALL[0], WIDE[0], TALL[0, :, 0])
add("tensorinv", names("torch.linalg.tensorinv"),
    lambda t, a: t.linalg.tensorinv(a.reshape(4, 2, 2, 4), ind=2), rng.standard_normal((8, 8)) + 4 * np.eye(8))
add("tensorsolve", names("torch.linalg.tensorsolve"),
    lambda t, a, b: (t.linalg.tensorsolve(a.reshape(2, 3, 6), b), t.linalg.tensorsolve(a.reshape(6, 2, 3), b,
                                                                                     dims=(0,))),
    rng.standard_normal((6, 6)) + 3 * np.eye(6), rng.standard_normal((2, 3)))
add("vander", names("torch.linalg.vander"), lambda t, x: (t.linalg.vander(x), t.linalg.vander(x, N=5)), TALL[:, :, 0])
add("diagonal", names("torch.linalg.diagonal", "torch.diagonal", "torch.Tensor.diagonal"),
    lambda t, a: (t.linalg.diagonal(a), t.linalg.diagonal(a, offset=1), t.diagonal(a, -1, 1, 2), a.diagonal(0, 0, 2)),
    TALL)
add("diag_embed", names("torch.diag_embed", "torch.Tensor.diag_embed"),
    lambda t, x: (t.diag_embed(x), x.diag_embed()), TALL[:, :, 0])
add("vecdot_matmul_cross", names("torch.linalg.vecdot", "torch.linalg.matmul", "torch.linalg.cross"),
    lambda t, a, b: (t.linalg.vecdot(a, b), t.linalg.matmul(a, b.mT), t.linalg.cross(a, b),
                     t.linalg.cross(a[:1], b)), TALL, TALL[::-1].copy())


# --- errors: PyTorch's LinAlgError (a RuntimeError) with its message --------------------------

def _same_linalg_error(fn):
    import msnb.adapter.torch as mt
    errs = []
    for lib in (real, mt):
        with pytest.raises(RuntimeError) as info:
            fn(lib)
        assert isinstance(info.value, lib.linalg.LinAlgError), type(info.value)
        errs.append(str(info.value))
    assert errs[0] == errs[1]


_ERRORS = {
    "inv_singular": lambda t: t.linalg.inv(t.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "inv_singular_batch": lambda t: t.linalg.inv(t.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])),
    "inverse_singular": lambda t: t.inverse(t.zeros(3, 3, dtype=t.float64)),
    "inv_ex_check_errors": lambda t: t.linalg.inv_ex(t.zeros(2, 2), check_errors=True),
    "solve_singular": lambda t: t.linalg.solve(t.tensor([[1.0, 2.0], [2.0, 4.0]]), t.ones(2, 1)),
    "cholesky_not_pd": lambda t: t.linalg.cholesky(t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "cholesky_not_pd_batch": lambda t: t.linalg.cholesky(t.stack([t.eye(3), -t.eye(3)])),
}
for _id, _fn in _ERRORS.items():
    CASES.append(case(f"error[{_id}]", names("torch.linalg.LinAlgError"), lambda r, m, f=_fn: _same_linalg_error(f),
                      kind="custom"))

_BAD = {
    "inv_not_square": lambda t: t.linalg.inv(t.ones(2, 3)),
    "inv_1d": lambda t: t.linalg.inv(t.ones(3)),
    "inv_int": lambda t: t.linalg.inv(t.ones(2, 2, dtype=t.int64)),
    "solve_shapes": lambda t: t.linalg.solve(t.eye(3), t.ones(2, 1)),
    "qr_mode": lambda t: t.linalg.qr(t.ones(2, 2), mode="bad"),
    "eigh_uplo": lambda t: t.linalg.eigh(t.eye(2), UPLO="X"),
    "cross_size": lambda t: t.linalg.cross(t.ones(2, 2), t.ones(2, 2)),
    "multi_dot_one": lambda t: t.linalg.multi_dot([t.ones(2, 2)]),
}
for _id, _fn in _BAD.items():
    CASES.append(case(f"bad_input[{_id}]", (), _fn, kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_linalg(c):
    if c.kind == "custom_fn":  # same returned value (an error message) from both libraries
        import msnb.adapter.torch as mt
        arrays = c.arrays
        r = c.fn(real, *[real.tensor(a).requires_grad_(True) for a in arrays])
        m = c.fn(mt, *[mt.tensor(a).requires_grad_(True) for a in arrays])
        assert r == m
        return
    run_case(c)
