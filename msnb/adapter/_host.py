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
           "eigvals", "eigvals_grad", "eig", "eig_grad", "matrix_exp", "special_fn", "orthogonal_polynomial"]


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


def eig(a):
    """``(eigenvalues, eigenvectors)``, both complex, of a real square matrix (LAPACK geev:
    PyTorch's order, unit-norm eigenvectors whose largest component is real)."""
    x = _np(a)
    cd = np.complex64 if x.dtype == np.float32 else np.complex128
    if x.size == 0:
        return _t(np.zeros(x.shape[:-1], cd)), _t(np.zeros(x.shape, cd))
    w, v = np.linalg.eig(x)
    return _t(w, cd), _t(v, cd)


def eig_grad(a, w, v, gw, gv):
    """PyTorch's gradient of ``eig`` for real ``a`` (``gw`` / ``gv`` may be None):
    ``Re(V^{-H} (diag(gw) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)) V^H)``
    with ``E[i, j] = w_j - w_i`` (the diagonal takes ``gw``)."""
    x, L, V = _np(a), _np(w), _np(v)
    if x.size == 0:
        return _t(np.zeros_like(x))
    n = x.shape[-1]
    Vh = np.conj(np.swapaxes(V, -1, -2))
    if gv is not None:
        VhgV = Vh @ _np(gv)
        d = np.real(np.diagonal(VhgV, axis1=-2, axis2=-1))
        VhgV = VhgV - Vh @ (V * d[..., None, :])
        E = np.conj(L)[..., None, :] - np.conj(L)[..., :, None]
        eye = np.eye(n, dtype=bool)
        with np.errstate(all="ignore"):
            inner = np.where(eye, 0, VhgV / np.where(eye, 1, E))
    else:
        inner = np.zeros(V.shape, V.dtype)
    if gw is not None:
        idx = np.arange(n)
        inner[..., idx, idx] = _np(gw)
    r = np.linalg.solve(Vh, inner @ Vh)
    return _t(r.real, x.dtype)


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
    """``X`` with ``A X = B`` for triangular ``A`` (batch dims already broadcast), by BLAS ?trsm as
    PyTorch: a zero on the diagonal gives inf / nan, not an error (LAPACK ?trtrs would refuse it)."""
    from scipy.linalg.blas import get_blas_funcs
    x, y = _np(a), _np(b)
    if x.size == 0 or y.size == 0:
        return _t(np.zeros(y.shape, y.dtype))
    fa = x.reshape((-1,) + x.shape[-2:])
    fb = y.reshape((-1,) + y.shape[-2:])
    out = np.empty_like(fb)
    trsm = get_blas_funcs("trsm", (fa, fb))
    with np.errstate(all="ignore"):
        for i in range(fa.shape[0]):
            out[i] = trsm(1.0, fa[i], fb[i], lower=int(not upper), diag=int(unitriangular))
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


def _recurrence(x, n, p0, p1, step):
    """``P_n(x)`` by a three-term recurrence, elementwise with per-element ``n`` (>= 2 where used):
    ``P_{k+1} = step(k, P_k, P_{k-1})`` starting from ``P_0 = p0``, ``P_1 = p1``."""
    p, q = np.broadcast_to(p0, x.shape).astype(x.dtype), np.broadcast_to(p1, x.shape).astype(x.dtype)
    r = q.copy()
    top = int(n.max()) if n.size else 0
    for k in range(1, top):
        nxt = step(k, q, p).astype(x.dtype)
        live = k < n
        r = np.where(live, nxt, r)
        p, q = np.where(live, q, p), np.where(live, nxt, q)
    return r


def _chebyshev(kind, x, n):
    one = x.dtype.type(1)
    two_x = x + x
    p1 = {"t": x, "u": two_x, "v": two_x - one, "w": two_x + one}[kind]
    r = _recurrence(x, n, one, p1, lambda k, q, p: two_x * q - p)
    r = np.where(n == 1, p1, r)
    r = np.where(n == 0, one, r)
    inside = np.abs(x) < 1
    theta = np.arccos(np.clip(x, -1, 1))
    if kind == "t":
        big = (n > 6) & inside
        r = np.where(big, np.cos(n * theta), r)
        edge = np.where((x > 0) | (n % 2 == 0), one, -one)
    elif kind == "u":
        big = (n > 8) & inside
        s = np.sin(theta)
        with np.errstate(all="ignore"):
            trig = np.where(s != 0, np.sin((n + 1) * theta) / s, (n + 1) * np.cos((n + 1) * theta) / x)
        r = np.where(big, trig, r)
        edge = np.where((x > 0) | (n % 2 == 0), n + 1, -(n + 1))
    elif kind == "v":
        big = (n > 8) & inside
        with np.errstate(all="ignore"):
            trig = np.where(np.sin(theta / 2) != 1, np.cos((n + 0.5) * theta) / np.cos(theta / 2),
                            np.where(n % 2 == 0, n + n + 1, -(n + n + 1)))
        r = np.where(big, trig, r)
        edge = np.where(x > 0, one, np.where(n % 2 == 0, n + n + 1, -(n + n + 1)))
    else:
        big = (n > 8) & inside
        with np.errstate(all="ignore"):
            trig = np.where(np.cos(theta / 2) != 1, np.sin((n + 0.5) * theta) / np.sin(theta / 2),
                            np.where(x > 0, n + n + 1, np.where(n % 2 == 0, 1, -1)))
        r = np.where(big, trig, r)
        edge = np.where(x > 0, n + n + 1, np.where(n % 2 == 0, one, -one))
    r = np.where(np.abs(x) == 1, edge, r)
    return r


def _hermite_h(x, n):
    two_x = x + x
    r = _recurrence(x, n, 1, two_x, lambda k, q, p: two_x * q - (2 * k) * p)
    r = np.where(n == 1, two_x, np.where(n == 0, 1, r))
    return np.where(n > (128 if x.dtype == np.float32 else 512), np.nan, r)


def _hermite_he(x, n):
    r = _recurrence(x, n, 1, x, lambda k, q, p: x * q - k * p)
    r = np.where(n == 1, x, np.where(n == 0, 1, r))
    return np.where(n > (128 if x.dtype == np.float32 else 512), np.nan, r)


def _laguerre(x, n):
    one = x.dtype.type(1)
    r = _recurrence(x, n, one, one - x, lambda k, q, p: (((k + k) + (one - x)) * q - k * p) / (k + 1))
    r = np.where(n == 1, one - x, np.where(n == 0, one, r))
    return np.where(x == 0, one, r)


def _legendre(x, n):
    one = x.dtype.type(1)
    r = _recurrence(x, n, one, x, lambda k, q, p: ((k + k + 1) * x * q - k * p) / (k + 1))
    r = np.where(n == 1, x, np.where(n == 0, one, r))
    return np.where(np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), one, -one), r)


def orthogonal_polynomial(kind):
    """A kernel for PyTorch's ``special.<kind>_polynomial_*(x, n)``: the three-term recurrences
    (and, for Chebyshev polynomials of large ``n`` inside (-1, 1), their trigonometric forms) that
    PyTorch evaluates, in ``x``'s dtype; ``n < 0`` gives 0.  ``shifted_*`` evaluate at ``2x - 1``."""
    shifted = kind.startswith("shifted_")
    base = kind[len("shifted_"):] if shifted else kind

    def kernel(x_t, n_t):
        x, n = _np(x_t), _np(n_t)
        x, n = np.broadcast_arrays(x, n)
        with np.errstate(all="ignore"):
            n = np.where(np.isfinite(n), n, -1).astype(np.int64) if n.dtype.kind == "f" else n.astype(np.int64)
        xs = (x + x - 1).astype(x.dtype) if shifted else x
        with np.errstate(all="ignore"):
            if base.startswith("chebyshev_"):
                r = _chebyshev(base[-1], xs, n)
            else:
                r = {"hermite_h": _hermite_h, "hermite_he": _hermite_he, "laguerre_l": _laguerre,
                     "legendre_p": _legendre}[base](xs, n)
        r = np.where(n < 0, 0, r)
        return _t(np.asarray(r), x.dtype)
    kernel.__name__ = f"host_{kind}_polynomial"
    return kernel
