"""LU factorisation: ``torch.linalg.lu_factor`` / ``lu_factor_ex`` / ``lu`` / ``lu_solve`` and the
older ``torch.lu``.

MindSpore 2.10 has no CPU LU kernel.  The row pivots are LAPACK's (``getrf`` on the host, as
PyTorch's CPU build calls it, so they are PyTorch's), and the factors are then computed by
Gaussian elimination of the permuted matrix written with msnb's ops, so gradients reach the
input for every shape (square, wide, tall, batched) as in PyTorch.  A zero pivot leaves its
column of ``L`` zero and sets ``info``, as LAPACK does.  The elimination takes ``min(m, n)``
steps of a few ops each.
"""

from __future__ import annotations

import numpy as np

from .. import return_types
from .. import _dtype as D
from . import matrix as M
from . import shape as S

__all__ = ["lu_factor", "lu_factor_ex", "linalg_lu", "lu", "linalg_lu_solve"]

_LuFactor = return_types.structseq("linalg_lu_factor", ["LU", "pivots"])
_LuFactorEx = return_types.structseq("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_Lu = return_types.structseq("linalg_lu", ["P", "L", "U"])
_LuWithInfo = return_types.structseq("_lu_with_info", ["LU", "pivots", "info"])


def _check(name, A):
    if A.ndim < 2:
        raise RuntimeError(f"torch.{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not A.dtype.is_floating_point:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{D._name_of(A.dtype)}'")


def _batch_count(batch):
    """How many matrices a batch shape holds, spelled out: numpy cannot infer a ``-1`` dimension
    for an empty array (a 0 x 0 matrix, or ``(..., 0)`` pivots)."""
    return int(np.prod(batch, dtype=np.int64))


def _getrf(a):
    """LAPACK's 1-based pivots (int32, ``(..., k)``) and ``info`` (int32, ``(...)``) of each matrix."""
    import scipy.linalg.lapack as lapack
    m, n = a.shape[-2:]
    k = min(m, n)
    flat = a.reshape((_batch_count(a.shape[:-2]), m, n))
    piv = np.tile(np.arange(1, k + 1, dtype=np.int32), (flat.shape[0], 1))
    info = np.zeros(flat.shape[0], np.int32)
    fn = lapack.sgetrf if a.dtype == np.float32 else lapack.dgetrf
    if k:
        for i, mat in enumerate(flat):
            _, p, inf = fn(mat)
            piv[i], info[i] = p[:k] + 1, max(int(inf), 0)
    return piv.reshape(a.shape[:-2] + (k,)), info.reshape(a.shape[:-2])


def _row_order(piv, m):
    """The row order ``perm`` with ``P^T A = A[perm]`` for LAPACK's successive swaps ``piv``."""
    flat = piv.reshape(_batch_count(piv.shape[:-1]), piv.shape[-1])
    out = np.tile(np.arange(m), (flat.shape[0], 1))
    for b, row in enumerate(flat):
        perm = out[b]
        for i, j in enumerate(row - 1):
            perm[i], perm[j] = perm[j], perm[i]
    return out.reshape(piv.shape[:-1] + (m,))


def _eliminate(PA):
    """``(L, U)`` of ``PA`` (already pivoted) by Gaussian elimination in differentiable ops:
    ``L`` is ``(m, k)`` unit lower, ``U`` is ``(k, n)`` upper, ``k = min(m, n)``."""
    from .creation import ones, zeros
    from . import pointwise as P
    m, n = PA.shape[-2:]
    k = min(m, n)
    batch = tuple(PA.shape[:-2])
    cur, rows, cols = PA, [], []
    for j in range(k):
        top = S.narrow(cur, -2, 0, 1) if cur.shape[-2] > 1 else cur  # row j of U
        rows.append(top)
        head = [zeros(*batch, j, 1, dtype=PA.dtype)] if j else []
        col = head + [ones(*batch, 1, 1, dtype=PA.dtype)]
        if cur.shape[-2] > 1:  # (no empty slices: their gradient is not taken by MindSpore's slice kernel)
            piv = S.narrow(top, -1, j, 1)
            below = S.narrow(cur, -2, 1, cur.shape[-2] - 1)
            zero = P.eq(piv, 0)
            l = P.where(zero, 0.0, P.div(S.narrow(below, -1, j, 1), P.where(zero, 1.0, piv)))
            col.append(l)
            cur = P.sub(below, P.mul(l, top))
        cols.append(S.cat(col, -2) if len(col) > 1 else col[0])
    if not k:
        return zeros(*batch, m, 0, dtype=PA.dtype), zeros(*batch, 0, n, dtype=PA.dtype)
    return S.cat(cols, -1), S.triu(S.cat(rows, -2))


def _factor(A):
    """``(perm, pivots, info, L, U)`` of ``A`` (``P^T A = A[perm] = L U``)."""
    from .creation import tensor, zeros
    from .factorized import tied_to
    m, n = A.shape[-2:]
    piv, info = _getrf(A.detach().numpy())
    perm = _row_order(piv, m)
    if A.numel() == 0:
        batch, k = tuple(A.shape[:-2]), min(m, n)
        return (perm, piv, info, tied_to(zeros(*batch, m, k, dtype=A.dtype), A),
                tied_to(zeros(*batch, k, n, dtype=A.dtype), A))
    idx = tensor(perm.astype(np.int64)).unsqueeze(-1).expand(*perm.shape, A.shape[-1])
    L, U = _eliminate(A.gather(-2, idx))
    return perm, piv, info, L, U


def _packed(L, U):
    """LAPACK's packed ``(m, n)`` LU: the strict lower part of ``L`` over ``U``."""
    from .creation import zeros
    m, k = L.shape[-2:]
    n = U.shape[-1]
    batch = tuple(L.shape[:-2])
    low = S.tril(L, -1)
    up = U
    if m > k:
        up = S.cat([U, zeros(*batch, m - k, n, dtype=U.dtype)], -2)
    if n > k:
        low = S.cat([low, zeros(*batch, m, n - k, dtype=L.dtype)], -1)
    return low + up


def _pivot_check(name, pivot):
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """msnb implementation of ``torch.linalg.lu_factor_ex``."""
    _check("lu_factor", A)
    _pivot_check("linalg.lu_factor", pivot)
    from .creation import tensor
    _, piv, info, L, U = _factor(A)
    if check_errors and (info > 0).any():
        raise RuntimeError(_singular("torch.linalg.lu_factor_ex", info))
    return _LuFactorEx(_packed(L, U), tensor(piv), tensor(info))


def _singular(name, info):
    flat = info.reshape(-1)
    b = int(np.nonzero(flat)[0][0])
    where = f"(Batch element {b}): " if info.ndim else ""
    i = int(flat[b])
    return (f"{name}: {where}U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. "
            "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
            "linalg.lu_factor_ex(A, pivot)")


def lu_factor(A, *, pivot=True, out=None):
    """msnb implementation of ``torch.linalg.lu_factor``: raises for a singular matrix, as PyTorch."""
    _check("lu_factor", A)
    _pivot_check("linalg.lu_factor", pivot)
    from .creation import tensor
    _, piv, info, L, U = _factor(A)
    if (info > 0).any():
        raise RuntimeError(_singular("torch.linalg.lu_factor", info))
    return _LuFactor(_packed(L, U), tensor(piv))


def linalg_lu(A, *, pivot=True, out=None):
    """msnb implementation of ``torch.linalg.lu``: ``(P, L, U)`` with ``A = P L U``."""
    _check("lu_factor", A)
    _pivot_check("linalg.lu", pivot)
    from .creation import tensor
    perm, _, _, L, U = _factor(A)
    m = A.shape[-2]
    eye = np.eye(m, dtype=A.dtype.numpy)
    Pm = np.swapaxes(eye[perm], -1, -2) if perm.size else np.zeros(perm.shape + (m,), A.dtype.numpy)
    return _Lu(tensor(np.ascontiguousarray(Pm), dtype=A.dtype), L, U)


def lu(A, pivot=True, get_infos=False, out=None):
    """msnb implementation of ``torch.lu`` (PyTorch's deprecated spelling of ``linalg.lu_factor_ex``)."""
    res = lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return _LuWithInfo(*res)
    return res.LU, res.pivots


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """msnb implementation of ``torch.linalg.lu_solve``: ``A X = B`` (``X A = B`` when not ``left``;
    ``A^H`` for ``adjoint``) from the packed factors, by two triangular solves."""
    from .factorized import _permutations
    from .linalg import matmul
    if LU.ndim < 2:
        raise RuntimeError(f"linalg.lu_solve: The input tensor LU must have at least 2 dimensions.")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError("linalg.lu_solve: Expected LU to be a square matrix")
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return M.mT(linalg_lu_solve(LU, pivots, M.mT(B), adjoint=not adjoint))
    P = _permutations(pivots, LU.shape[-1], LU.dtype)
    if not adjoint:
        y = M.solve_triangular(LU, matmul(M.mT(P), B), upper=False, unitriangular=True)
        return M.solve_triangular(LU, y, upper=True)
    y = M.solve_triangular(M.mT(LU), B, upper=False)
    y = M.solve_triangular(M.mT(LU), y, upper=True, unitriangular=True)
    return matmul(P, y)
