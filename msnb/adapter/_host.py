"""Kernels computed on the host with numpy / scipy (LAPACK), for ops where
MindSpore 2.10's CPU backend has no kernel that computes what PyTorch does.

Each function takes plain MindSpore tensors and returns MindSpore tensors, so
:mod:`msnb.adapter._dispatch` lists them beside MindSpore's own kernels.
Why each op is here (measured with MindSpore 2.10 on CPU, see
``tests/adapter/torch/linalg``):

* ``inv_ex`` / ``solve_ex`` / ``cholesky_ex``: MindSpore's ``MatrixInverse``
  returns finite numbers for a singular matrix (no error), and its Cholesky
  raises a generic error; LAPACK's ``getrf``/``potrf`` report which pivot or
  leading minor failed, which PyTorch's ``LinAlgError`` messages name.
* ``svd`` / ``eigh``: MindSpore's ``Svd`` picks other signs for the singular
  vectors than PyTorch (LAPACK ``gesdd``); there is no CPU ``eigh`` kernel.
* ``matrix_exp``: MindSpore 2.10 has no CPU ``MatrixExp`` kernel.
* ``pinv``: PyTorch's ``atol``/``rtol`` cut-offs on LAPACK's singular values.
* ``det_cofactor``: the gradient of ``det`` for singular matrices (through
  the SVD), which no MindSpore kernel gives.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg.lapack as _lapack

from ._ms import ms

__all__ = ["inv_ex", "solve_ex", "cholesky_ex", "svd", "eigh", "det_cofactor", "pinv", "solve_triangular",
           "eigvals", "eigvals_grad", "matrix_exp", "special_fn"]


def _np(t):
    return t.asnumpy() if hasattr(t, "asnumpy") else np.asarray(t)


def _t(a, dtype=None):
    a = np.array(a if dtype is None else a.astype(dtype), order="C", copy=True)
    return ms.Tensor(a)


def _info(a, fn):
    """Per-matrix LAPACK ``info`` of ``fn`` over the batch of ``a`` (int32, batch shape)."""
    flat = a.reshape((-1,) + a.shape[-2:])
    infos = np.zeros(flat.shape[0], np.int32)
    for i, m in enumerate(flat):
        infos[i] = fn(m)
    return infos.reshape(a.shape[:-2])


def _getrf_info(m):
    get = _lapack.sgetrf if m.dtype == np.float32 else _lapack.dgetrf
    return max(int(get(m)[2]), 0)


def _potrf_info(m):
    pot = _lapack.spotrf if m.dtype == np.float32 else _lapack.dpotrf
    return max(int(pot(m, lower=1, clean=1)[1]), 0)


def _per_matrix(x, args, compute, info_of, fill):
    """``compute(*args)`` over the whole batch of ``x``; when LAPACK refuses some matrix,
    per-matrix ``info`` from ``info_of`` and results only for the matrices it accepts
    (``fill`` elsewhere).  Returns ``(result, info)``."""
    try:
        return compute(*args), np.zeros(x.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        info = _info(x, info_of)
        r = np.full(np.broadcast_shapes(args[-1].shape), fill, args[-1].dtype)
        ok = info == 0
        if ok.any():
            r[ok] = compute(*(v[ok] for v in args))
        return r, info


def inv_ex(a):
    """``(inverse, info)``; ``info`` is LAPACK getrf's (0, or the 1-based zero pivot)."""
    x = _np(a)
    if x.size == 0:
        return _t(x.copy()), _t(np.zeros(x.shape[:-2], np.int32))
    r, info = _per_matrix(x, (x,), np.linalg.inv, _getrf_info, np.nan)
    return _t(r, x.dtype), _t(info)


def solve_ex(a, b):
    """``(X, info)`` with ``A X = B`` for matrix ``B`` (batch dims already broadcast)."""
    x, y = _np(a), _np(b)
    if x.size == 0 or y.size == 0:
        return _t(np.zeros(y.shape, y.dtype)), _t(np.zeros(x.shape[:-2], np.int32))
    r, info = _per_matrix(x, (x, y), np.linalg.solve, _getrf_info, np.nan)
    return _t(r, y.dtype), _t(info)


def cholesky_ex(a):
    """``(L, info)``: lower Cholesky factor from the lower triangle of ``a``; ``info`` is
    potrf's (0, or the order of the first leading minor that is not positive-definite)."""
    x = _np(a)
    if x.size == 0:
        return _t(x.copy()), _t(np.zeros(x.shape[:-2], np.int32))
    low = np.tril(x)
    sym = low + np.swapaxes(np.tril(x, -1), -1, -2)
    r, info = _per_matrix(sym, (sym,), np.linalg.cholesky, _potrf_info, 0.0)
    return _t(r, x.dtype), _t(info)


def svd(a, full_matrices=False, compute_uv=True):
    """LAPACK gesdd through numpy: ``(U, S, Vh)`` (empty U, Vh without ``compute_uv``)."""
    x = _np(a)
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    if x.size == 0:
        s = np.zeros(batch + (k,), x.dtype)
        if not compute_uv:
            return _t(np.zeros((0,), x.dtype)), _t(s), _t(np.zeros((0,), x.dtype))
        mu, nv = (m, n) if full_matrices else (k, k)
        eu = np.broadcast_to(np.eye(m, mu, dtype=x.dtype), batch + (m, mu))
        ev = np.broadcast_to(np.eye(nv, n, dtype=x.dtype), batch + (nv, n))
        return _t(eu), _t(s), _t(ev)
    if not compute_uv:
        s = np.linalg.svd(x, compute_uv=False)
        return _t(np.zeros((0,), x.dtype)), _t(s, x.dtype), _t(np.zeros((0,), x.dtype))
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return _t(u, x.dtype), _t(s, x.dtype), _t(vh, x.dtype)


def eigh(a, upper=False, compute_v=True):
    """``(eigenvalues ascending, eigenvectors)`` of the symmetric matrix in one triangle of ``a``."""
    x = _np(a)
    if x.size == 0:
        return _t(np.zeros(x.shape[:-1], x.dtype)), _t(x.copy())
    uplo = "U" if upper else "L"
    if not compute_v:
        return _t(np.linalg.eigvalsh(x, UPLO=uplo), x.dtype), _t(np.zeros((0,), x.dtype))
    w, v = np.linalg.eigh(x, UPLO=uplo)
    return _t(w, x.dtype), _t(v, x.dtype)


def eigvals(a):
    """General eigenvalues (complex) of a real square matrix (LAPACK geev)."""
    x = _np(a)
    cd = np.complex64 if x.dtype == np.float32 else np.complex128
    if x.size == 0:
        return _t(np.zeros(x.shape[:-1], cd))
    return _t(np.linalg.eigvals(x), cd)


def det_cofactor(a):
    """The cofactor matrix of ``a`` (``d det(a) / d a``), also for singular matrices:
    with ``a = U S Vh``, ``adj(a)^T = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh``."""
    x = _np(a)
    if x.size == 0:
        return _t(x.copy())
    u, s, vh = np.linalg.svd(x.astype(np.float64))
    n = s.shape[-1]
    prods = np.empty_like(s)
    for i in range(n):
        prods[..., i] = np.prod(np.delete(s, i, axis=-1), axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    c = (u * prods[..., None, :]) @ vh * sign[..., None, None]
    return _t(c, x.dtype)


def pinv(a, atol, rtol, hermitian=False):
    """Pseudo-inverse; singular values (eigenvalue moduli with ``hermitian``) at or
    below ``max(atol, rtol * largest)`` count as zero (``atol``/``rtol``: arrays
    broadcasting to the batch shape)."""
    x = _np(a)
    m, n = x.shape[-2:]
    if x.size == 0:
        return _t(np.zeros(x.shape[:-2] + (n, m), x.dtype))
    if hermitian:
        w, v = np.linalg.eigh(x)
        mag = np.abs(w)
    else:
        u, mag, vh = np.linalg.svd(x, full_matrices=False)
    cut = np.maximum(_np(atol), _np(rtol) * mag.max(axis=-1))
    keep = mag > cut[..., None]
    if hermitian:
        winv = np.where(keep, 1.0 / np.where(keep, w, 1.0), 0.0)
        r = (v * winv[..., None, :]) @ np.swapaxes(v, -1, -2)
    else:
        sinv = np.where(keep, 1.0 / np.where(keep, mag, 1.0), 0.0)
        r = (np.swapaxes(vh, -1, -2) * sinv[..., None, :]) @ np.swapaxes(u, -1, -2)
    return _t(r, x.dtype)


def matrix_exp(a):
    """``expm`` of each matrix (scipy's Pade approximation)."""
    from scipy.linalg import expm
    x = _np(a)
    if x.size == 0:
        return _t(x.copy())
    return _t(expm(x), x.dtype)


def solve_triangular(a, b, upper, unitriangular=False):
    """``X`` with ``A X = B`` for triangular ``A`` (batch dims already broadcast)."""
    from scipy.linalg import solve_triangular as st
    x, y = _np(a), _np(b)
    if x.size == 0 or y.size == 0:
        return _t(np.zeros(y.shape, y.dtype))
    fa = x.reshape((-1,) + x.shape[-2:])
    fb = y.reshape((-1,) + y.shape[-2:])
    out = np.empty_like(fb)
    with np.errstate(all="ignore"):
        for i in range(fa.shape[0]):
            out[i] = st(fa[i], fb[i], lower=not upper, unit_diagonal=unitriangular, check_finite=False)
    return _t(out.reshape(y.shape), y.dtype)


def special_fn(name):
    """A kernel computing ``scipy.special.<name>`` elementwise on the host (result in the
    last operand's dtype)."""
    import scipy.special as sp
    extra = {"airy_ai": lambda x: sp.airy(x)[0], "spherical_j0": lambda x: sp.spherical_jn(0, x)}
    fn = extra[name] if name in extra else getattr(sp, name)

    def kernel(*tensors):
        arrs = [_np(t) for t in tensors]
        with np.errstate(all="ignore"):
            r = fn(*arrs)
        return _t(np.asarray(r), arrs[-1].dtype)
    kernel.__name__ = f"host_{name}"
    return kernel


def eigvals_grad(a, g):
    """PyTorch's gradient of ``eigvals`` for real ``a``: ``Re(V^{-H} diag(g) V^H)``
    with ``a = V diag(w) V^{-1}`` (LAPACK geev)."""
    x, gl = _np(a), _np(g)
    if x.size == 0:
        return _t(np.zeros_like(x))
    _, v = np.linalg.eig(x)
    vh = np.conj(np.swapaxes(v, -1, -2))
    r = np.linalg.solve(vh, gl[..., :, None] * vh)  # V^{-H} diag(g) V^H
    return _t(r.real, x.dtype)
