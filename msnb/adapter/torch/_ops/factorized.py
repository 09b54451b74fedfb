"""``torch.*`` solvers that take a factorisation: ``cholesky_solve``, ``cholesky_inverse``,
``triangular_solve``, and LAPACK's ``geqrf``.

They are built on :mod:`matrix`'s triangular solve (host LAPACK, see
``_host.solve_triangular``), so their gradients come from its gradient.
"""

from __future__ import annotations


import numpy as np

from .. import return_types
from .. import _dtype as D
from . import matrix as M
from .lu import _batch_count

__all__ = ["cholesky_solve", "cholesky_inverse", "triangular_solve", "geqrf", "lu_unpack", "lu_solve", "orgqr",
           "ormqr"]

_TriSolve = return_types.structseq("triangular_solve", ["solution", "cloned_coefficient"])
_Geqrf = return_types.structseq("geqrf", ["a", "tau"])
_LuUnpack = return_types.structseq("lu_unpack", ["P", "L", "U"])


def _lower(L, upper):
    return M.mT(L) if upper else L


def cholesky_solve(B, L, upper=False, *, out=None):
    """msnb implementation of ``torch.cholesky_solve``: ``X`` with ``(L L^T) X = B``."""
    if B.ndim < 2 or L.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead")
    low = _lower(L, upper)
    y = M.solve_triangular(low, B, upper=False)
    return M.solve_triangular(M.mT(low), y, upper=True)


def cholesky_inverse(L, upper=False, *, out=None):
    """msnb implementation of ``torch.cholesky_inverse``: ``(L L^T)^-1`` from its Cholesky factor."""
    if L.ndim < 2:
        raise RuntimeError(f"cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    from .creation import eye
    n = L.shape[-1]
    ident = eye(n, dtype=L.dtype)
    if L.ndim > 2:
        ident = ident.expand(tuple(L.shape))
    return cholesky_solve(ident, L, upper)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """msnb implementation of ``torch.triangular_solve``: ``(solution, A)`` with ``op(A) X = b``."""
    if b.ndim < 2 or A.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b.ndim} dimensions instead")
    coef = M.mT(A) if transpose else A
    x = M.solve_triangular(coef, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TriSolve(x, A.clone())


def geqrf(input, *, out=None):
    """msnb implementation of ``torch.geqrf`` (LAPACK ``geqrf`` on the host: MindSpore 2.10's CPU Geqrf
    kernel is not used, so the Householder vectors are LAPACK's, as PyTorch's are)."""
    import scipy.linalg.lapack as lapack
    from .creation import tensor
    if input.ndim < 2:
        raise RuntimeError(f"torch.geqrf: input must have at least 2 dimensions.")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f'"geqrf_cpu" not implemented for \'{D._name_of(input.dtype).capitalize()}\'')
    a = input.detach().numpy()
    m, n = a.shape[-2:]
    flat = a.reshape((_batch_count(a.shape[:-2]), m, n))
    qr = np.empty_like(flat)
    taus = np.zeros((flat.shape[0], min(m, n)), a.dtype)
    fn = lapack.sgeqrf if a.dtype == np.float32 else lapack.dgeqrf
    for i, mat in enumerate(flat):
        if mat.size:
            q, t, _, _ = fn(mat)
            qr[i], taus[i] = q, t[:min(m, n)]
    return _Geqrf(tensor(qr.reshape(a.shape)), tensor(taus.reshape(a.shape[:-2] + (min(m, n),))))



def _permutations(piv, m, dtype):
    """The permutation matrices ``P`` (``A = P L U``) of LAPACK's 1-based row swaps ``piv``, batched.
    The batch count is spelled out (``_batch_count``): numpy cannot infer a ``-1`` for an empty
    ``(..., 0)`` pivots array (a 0 x 0 matrix's)."""
    from .creation import tensor
    p = piv.numpy().astype(np.int64)
    flat = p.reshape(_batch_count(p.shape[:-1]), p.shape[-1]) if p.ndim else p.reshape(1, 1)
    mats = np.zeros((flat.shape[0], m, m), dtype.numpy)
    for b, row in enumerate(flat):
        perm = np.arange(m)
        for i, j in enumerate(row - 1):
            if not 0 <= j < m:
                raise RuntimeError(f"lu_unpack: pivots out of range: {j + 1} for a matrix with {m} rows")
            perm[i], perm[j] = perm[j], perm[i]
        mats[b] = np.eye(m, dtype=dtype.numpy)[:, perm]
    return tensor(mats.reshape(p.shape[:-1] + (m, m)))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """msnb implementation of ``torch.lu_unpack``: ``(P, L, U)`` from a packed LU factorisation."""
    from .creation import eye, zeros
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    if unpack_pivots:
        P = _permutations(LU_pivots, m, LU_data.dtype)
    else:
        P = zeros(0, dtype=LU_data.dtype)
    if not unpack_data:
        return _LuUnpack(P, zeros(0, dtype=LU_data.dtype), zeros(0, dtype=LU_data.dtype))
    L = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=LU_data.dtype)
    U = LU_data[..., :k, :].triu()
    return _LuUnpack(P, L, U)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """msnb implementation of ``torch.lu_solve``: ``X`` with ``A X = b`` for ``A = P L U``
    (two triangular solves on the packed factors)."""
    from .linalg import matmul
    if LU_data.shape[-1] != LU_data.shape[-2]:
        raise RuntimeError("linalg.lu_solve: Expected LU to be a square matrix")
    P = _permutations(LU_pivots, LU_data.shape[-1], LU_data.dtype)
    y = matmul(M.mT(P), b)
    y = M.solve_triangular(LU_data, y, upper=False, unitriangular=True)
    return M.solve_triangular(LU_data, y, upper=True)


def tied_to(value, *inputs):
    """``value`` as a result of ``inputs`` for autograd (zero gradients to them), without slicing
    them: MindSpore's slice backward fails on tensors with a zero-size dimension."""
    for x in inputs:
        if x.dtype.is_floating_point:
            value = value + x.sum() * 0
    return value


def _reflectors(input, tau, rows, name):
    """``H_1 ... H_k`` applied to the first ``rows`` columns of the identity, for LAPACK's Householder
    vectors below the diagonal of ``input`` (``H_i = I - tau_i v_i v_i^T``, ``v_i[i] = 1``), in
    differentiable ops (gradients to ``input`` and ``tau``, as PyTorch's)."""
    from .creation import eye
    from .linalg import matmul
    m = input.shape[-2]
    k = tau.shape[-1]
    if not input.dtype.is_floating_point:
        raise RuntimeError(f'"{name}_cpu" not implemented for \'{D._name_of(input.dtype)}\'')
    Q = eye(m, rows, dtype=input.dtype)
    batch = tuple(input.shape[:-2])
    if batch:
        Q = Q.expand(*batch, m, rows)
    if input.numel() == 0 or k == 0:
        return tied_to(Q, input, tau)
    V = input[..., :, :k].tril(-1) + eye(m, k, dtype=input.dtype)
    for i in reversed(range(k)):
        v = V[..., :, i:i + 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * matmul(v, matmul(M.mT(v), Q))
    return Q


def householder_product(A, tau, *, out=None):
    """msnb implementation of ``torch.linalg.householder_product``: the first ``n`` columns of
    ``H_1 ... H_k`` (MindSpore 2.10 has no CPU Orgqr kernel: built from matmuls, so differentiable)."""
    name = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    return _reflectors(A, tau, A.shape[-1], "orgqr")


def orgqr(input, tau):
    """msnb implementation of ``torch.orgqr`` (``torch.linalg.householder_product``)."""
    return householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """msnb implementation of ``torch.ormqr``: ``op(Q) other`` (``other op(Q)`` when not ``left``) for
    ``Q = H_1 ... H_k`` of ``geqrf``'s Householder vectors, ``op`` the transpose when ``transpose``."""
    from .linalg import matmul
    for what, t in (("input", input), ("other", other)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.ormqr: {what} must have at least 2 dimensions.")
    m = input.shape[-2]
    side = -2 if left else -1
    if other.shape[side] != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.shape[-1] > min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    if other.numel() == 0:
        return tied_to(other * 0, input, tau)
    Q = _reflectors(input, tau, m, "ormqr")
    if transpose:
        Q = M.mT(Q)
    return matmul(Q, other) if left else matmul(other, Q)
