"""``torch.linalg``: inverses, solves, determinants, decompositions and norms,
with PyTorch's first-order gradients written as adapter ops.

Kernels come from :mod:`msnb.adapter._dispatch` (``K.inv_ex``, ``K.svd`` ...):
MindSpore's own where it computes PyTorch's answer (``det``, ``slogdet``,
``qr``), the host's LAPACK through numpy/scipy where it does not
(``msnb/adapter/_host.py`` says why for each).  Real floating dtypes only:
complex input raises msnb's not-supported error.
"""

from __future__ import annotations


import numpy as np

from .. import return_types
from .. import _core
from .. import _dtype as D
from .._core import K, cast, needs_grad, record, wrap
from . import complex as CX
from . import linalg as L
from . import pointwise as P

__all__ = ["LinAlgError", "inv", "inv_ex", "det", "slogdet", "logdet", "solve", "solve_ex", "cholesky",
           "cholesky_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh", "eigvals", "eig", "pinv", "lstsq",
           "matrix_rank", "solve_triangular", "matrix_exp", "matrix_power", "multi_dot", "tensorinv",
           "tensorsolve", "vander", "diagonal", "vecdot", "diag_embed", "mT", "eye_like"]


class LinAlgError(RuntimeError):
    """msnb implementation of ``torch.linalg.LinAlgError`` (a ``RuntimeError``, as in PyTorch)."""


_InvEx = return_types.structseq("linalg_inv_ex", ["inverse", "info"])
_SolveEx = return_types.structseq("linalg_solve_ex", ["result", "info"])
_CholEx = return_types.structseq("linalg_cholesky_ex", ["L", "info"])
_Slogdet = return_types.structseq("linalg_slogdet", ["sign", "logabsdet"])
_QR = return_types.structseq("linalg_qr", ["Q", "R"])
_SVD = return_types.structseq("linalg_svd", ["U", "S", "Vh"])
_Eigh = return_types.structseq("linalg_eigh", ["eigenvalues", "eigenvectors"])
_Eig = return_types.structseq("linalg_eig", ["eigenvalues", "eigenvectors"])
_Lstsq = return_types.structseq("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def mT(x):
    """The batch of transposed matrices (last two dims swapped)."""
    return x.transpose(-1, -2)


def eye_like(n, x):
    from .creation import eye
    return eye(n, dtype=x.dtype)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """msnb implementation of ``torch.diag_embed``."""
    nd = input.ndim + 1  # the result's rank: the dims name its axes
    dim1, dim2 = _core.wrap_dim(dim1, nd), _core.wrap_dim(dim2, nd)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset != 0 or (dim1 % (input.ndim + 1), dim2 % (input.ndim + 1)) != (input.ndim - 1, input.ndim):
        from .positions import diag_embed_general
        return diag_embed_general(input, offset, dim1, dim2)
    n = input.shape[-1]
    # selected, not multiplied by the identity: an infinite or NaN entry times 0 would be NaN
    return P.where(cast(eye_like(n, input), D.bool), input.unsqueeze(-1), False if input.dtype is D.bool else 0)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """msnb implementation of ``torch.diagonal`` (a copy; PyTorch returns a view)."""
    from .creation import tensor
    from .indexing import index_select
    nd = input.ndim
    d1, d2 = _core.wrap_dim(dim1, nd), _core.wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rest = [d for d in range(nd) if d not in (d1, d2)]
    x = input.permute(*rest, d1, d2)
    m, n = x.shape[-2], x.shape[-1]
    if offset >= 0:
        k = max(min(m, n - offset), 0)
        idx = [i * n + i + offset for i in range(k)]
    else:
        k = max(min(m + offset, n), 0)
        idx = [(i - offset) * n + i for i in range(k)]
    flat = x.reshape(*x.shape[:-2], m * n)
    return index_select(flat, -1, tensor(idx, dtype=D.int64))


def _check(name, A, square=True):
    dt = A.dtype
    if dt.is_complex:
        raise NotImplementedError(f"torch.{name} of complex tensors is not supported by msnb yet (see the support "
                                  "list: python -m msnb.adapter.support --markdown)")
    if not dt.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {D._name_of(dt)}")
    if dt in (D.float16, D.bfloat16):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {D._name_of(dt)}")
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _raise(name, info, what):
    """PyTorch's LinAlgError for the first failed matrix (``info`` > 0)."""
    arr = info.detach().numpy().reshape(-1)
    bad = np.nonzero(arr > 0)[0]
    if not bad.size:
        return
    i = int(bad[0])
    where = f"(Batch element {i}): " if info.ndim else ""
    raise LinAlgError(f"{name}: {where}{what(int(arr[i]))}")


def _singular_inv(k):
    return f"The diagonal element {k} is zero, the inversion could not be completed because the input matrix is singular."


def _singular_solve(k):
    return "The solver failed because the input matrix is singular."


def _not_pd(k):
    return ("The factorization could not be completed because the input is not positive-definite (the leading "
            f"minor of order {k} is not positive-definite).")


# --- inverse and solve ------------------------------------------------------------------

def inv_ex(A, *, check_errors=False, out=None):
    """msnb implementation of ``torch.linalg.inv_ex``."""
    _check("linalg.inv_ex", A)
    y, info = (wrap(t) for t in K.inv_ex(A))
    if check_errors:
        _raise("linalg.inv_ex", info, _singular_inv)
    if needs_grad(A):
        record("LinalgInvExBackward0", y, (A,), lambda g: (P.neg(L.matmul(L.matmul(mT(y), g), mT(y))),))
    return _InvEx(y, info)


def inv(A, *, out=None):
    """msnb implementation of ``torch.linalg.inv`` (raises ``LinAlgError`` for a singular matrix)."""
    _check("linalg.inv", A)
    y, info = inv_ex(A)
    _raise("linalg.inv", info, _singular_inv)
    return y


def _is_vector_rhs(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _broadcast_batch(A, B):
    from .pointwise import broadcast_shape
    batch = broadcast_shape(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    if tuple(A.shape[:-2]) != batch:
        A = A.expand(*batch, *A.shape[-2:])
    if tuple(B.shape[:-2]) != batch:
        B = B.expand(*batch, *B.shape[-2:])
    return A, B


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """msnb implementation of ``torch.linalg.solve_ex``."""
    _check("linalg.solve_ex", A)
    if B.dtype is not A.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{D._name_of(A.dtype)} and B of type {D._name_of(B.dtype)} instead")
    vec = _is_vector_rhs(A, B)
    if not left:
        if vec:
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for "
                               "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")
        x, info = solve_ex(mT(A), mT(B), check_errors=check_errors)
        return _SolveEx(mT(x), info)
    b = B.unsqueeze(-1) if vec else B
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    a2, b2 = _broadcast_batch(A, b)
    x, info = (wrap(t) for t in K.solve_ex(a2, b2))
    if check_errors:
        _raise("linalg.solve_ex", info, _singular_solve)
    if needs_grad(a2, b2):
        def bw(g):
            gb = solve(mT(a2), g)
            return P.neg(L.matmul(gb, mT(x))), gb
        record("LinalgSolveExBackward0", x, (a2, b2), bw)
    return _SolveEx(x.squeeze(-1) if vec else x, info)


def solve(A, B, *, left=True, out=None):
    """msnb implementation of ``torch.linalg.solve`` (raises ``LinAlgError`` for a singular ``A``)."""
    _check("linalg.solve", A)
    x, info = solve_ex(A, B, left=left)
    _raise("torch.linalg.solve", info, _singular_solve)
    return x


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """msnb implementation of ``torch.linalg.solve_triangular``."""
    _check("linalg.solve_triangular", A)
    if not left:
        return mT(solve_triangular(mT(A), mT(B), upper=not upper, unitriangular=unitriangular))
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    a2, b2 = _broadcast_batch(A, B)
    x = wrap(K.solve_triangular(a2, b2, upper, unitriangular))
    if needs_grad(a2, b2):
        def bw(g):
            gb = solve_triangular(mT(a2), g, upper=not upper, unitriangular=unitriangular)
            ga = P.neg(L.matmul(gb, mT(x)))
            ga = ga.triu(1 if unitriangular else 0) if upper else ga.tril(-1 if unitriangular else 0)
            return ga, gb
        record("LinalgSolveTriangularBackward0", x, (a2, b2), bw)
    return x


# --- determinants -----------------------------------------------------------------------

def det(A, *, out=None):
    """msnb implementation of ``torch.linalg.det`` (MindSpore's kernel; the gradient is the
    cofactor matrix, singular matrices included)."""
    _check("linalg.det", A)
    n = A.shape[-1]
    if n == 0 or A.numel() == 0:
        from .creation import ones
        d = ones(tuple(A.shape[:-2]), dtype=A.dtype)
    elif n == 1:
        d = wrap(K.reshape(A, tuple(A.shape[:-2])))
    else:
        d = wrap(K.det(A))
    if needs_grad(A):
        def bw(g):
            # PyTorch's gradient is 0 for an exactly singular matrix (det == 0); elsewhere the
            # cofactor matrix, computed through the SVD so that near-singular ones stay exact
            scale = P.where(P.eq(d, 0), 0.0, g).unsqueeze(-1).unsqueeze(-1)
            return (P.mul(scale, wrap(K.det_cofactor(A))),)
        record("LinalgDetBackward0", d, (A,), bw, saved=(A,))
    return d


def slogdet(A, *, out=None):
    """msnb implementation of ``torch.linalg.slogdet``."""
    _check("linalg.slogdet", A)
    n = A.shape[-1]
    if n == 0 or A.numel() == 0:
        from .creation import ones, zeros
        sign, logabs = ones(tuple(A.shape[:-2]), dtype=A.dtype), zeros(tuple(A.shape[:-2]), dtype=A.dtype)
    elif n == 1:
        a = wrap(K.reshape(A, tuple(A.shape[:-2])))
        sign, logabs = P.sign(a).detach(), P.log(P.abs(a)).detach()
    else:
        sign, logabs = (wrap(t) for t in K.slogdet(A))
    if needs_grad(A):
        def bw(gs, gl):
            if gl is None:
                return (None,)
            return (P.mul(gl.unsqueeze(-1).unsqueeze(-1), mT(inv_ex(A).inverse)),)
        record("LinalgSlogdetBackward0", (sign, logabs), (A,), bw, saved=(A,))
    return _Slogdet(sign, logabs)


def logdet(input):
    """msnb implementation of ``torch.logdet`` (nan for a negative determinant)."""
    sign, logabs = slogdet(input)
    return P.where(P.lt(sign, 0), float("nan"), logabs)


# --- Cholesky ---------------------------------------------------------------------------

def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """msnb implementation of ``torch.linalg.cholesky_ex`` (reads the lower triangle)."""
    _check("linalg.cholesky_ex", A)
    low, info = (wrap(t) for t in K.cholesky_ex(A))
    if check_errors:
        _raise("linalg.cholesky_ex", info, _not_pd)
    if needs_grad(A) and A.numel() == 0:
        record("LinalgCholeskyExBackward0", low, (A,), lambda g: (P.mul(A, 0).detach(),))
    elif needs_grad(A):
        def bw(gl):  # the gradient of the lower factor (``upper`` transposes after this node)
            phi = L.matmul(mT(low), gl).tril()
            phi = P.sub(phi, P.mul(diag_embed(diagonal(phi, 0, -2, -1)), 0.5))
            linv = inv_ex(low).inverse
            s = L.matmul(L.matmul(mT(linv), phi), linv)
            return (P.mul(P.add(s, mT(s)), 0.5),)
        record("LinalgCholeskyExBackward0", low, (A,), bw)
    return _CholEx(mT(low) if upper else low, info)


def cholesky(A, *, upper=False, out=None):
    """msnb implementation of ``torch.linalg.cholesky`` (raises ``LinAlgError`` when not positive-definite)."""
    _check("linalg.cholesky", A)
    res, info = cholesky_ex(A, upper=upper)
    _raise("linalg.cholesky", info, _not_pd)
    return res


# --- QR ---------------------------------------------------------------------------------

def qr(A, mode="reduced", *, out=None):
    """msnb implementation of ``torch.linalg.qr`` (MindSpore's kernel; modes reduced, complete, r)."""
    _check("linalg.qr", A, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    m, n = A.shape[-2], A.shape[-1]
    if A.numel() == 0:
        return _qr_empty(A, mode)
    q, r = (wrap(t) for t in K.qr(A, "reduced" if mode == "r" else mode))
    if needs_grad(A):
        def bw(gq, gr):
            if mode == "r":
                raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                                   "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                                   "through linalg.qr.")
            if mode == "complete" and m > n:
                raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                                   "nrows > ncols.")
            return (_qr_backward(A, q, r, gq, gr),)
        record("LinalgQrBackward0", (q, r), (A,), bw)
    if mode == "r":
        from .creation import zeros
        return _QR(zeros(0, dtype=A.dtype), r)
    return _QR(q, r)


def _qr_empty(A, mode):
    from .creation import zeros
    m, n = A.shape[-2], A.shape[-1]
    batch = tuple(A.shape[:-2])
    k = min(m, n)
    mq = m if mode == "complete" else k
    q = P.add(zeros(*batch, m, mq, dtype=A.dtype), _eye_rect(m, mq, A))
    r = zeros(*batch, mq, n, dtype=A.dtype)
    if needs_grad(A):
        record("LinalgQrBackward0", (q, r), (A,), lambda *g: (P.mul(A, 0).detach(),))
    return _QR(zeros(0, dtype=A.dtype) if mode == "r" else q, r)


def _eye_rect(m, n, x):
    from .creation import eye
    return eye(m, n, dtype=x.dtype)


def _copyltu(M):
    low = M.tril(-1)
    return P.add(P.add(low, mT(low)), diag_embed(diagonal(M, 0, -2, -1)))


def _qr_backward_tall(q, r, gq, gr):
    """Gradient for ``A = Q R`` with ``R`` square (m >= n, reduced)."""
    M = P.sub(L.matmul(r, mT(gr)), L.matmul(mT(gq), q))
    b = P.add(gq, L.matmul(q, _copyltu(M)))
    return mT(solve_triangular(r, mT(b), upper=True))


def _qr_backward(A, q, r, gq, gr):
    from .creation import zeros_like
    gq = zeros_like(q) if gq is None else gq
    gr = zeros_like(r) if gr is None else gr
    m, n = A.shape[-2], A.shape[-1]
    if m >= n:
        return _qr_backward_tall(q, r, gq, gr)
    from .shape import cat
    y = A[..., m:]
    u, gu = r[..., :m], gr[..., :m]
    gv = gr[..., m:]
    gy = L.matmul(q, gv)
    gx = _qr_backward_tall(q, u, P.add(gq, L.matmul(y, mT(gv))), gu)
    return cat([gx, gy], -1)


# --- SVD and symmetric eigendecomposition ------------------------------------------------

def _svd_parts(A, full_matrices):
    return tuple(wrap(t) for t in K.svd(A, full_matrices, True))


def _svd_backward(U, S, Vh, gU, gS, gVh):
    """Gradient of ``A = U diag(S) Vh`` (reduced factors) for real ``A``."""
    from .creation import zeros_like
    k = S.shape[-1]
    V = mT(Vh)
    if gU is None and gVh is None:
        return L.matmul(P.mul(U, (gS if gS is not None else zeros_like(S)).unsqueeze(-2)), Vh)
    gU = zeros_like(U) if gU is None else gU
    gV = zeros_like(V) if gVh is None else mT(gVh)
    s2 = P.mul(S, S)
    E = P.sub(s2.unsqueeze(-2), s2.unsqueeze(-1))  # E[i, j] = s_j^2 - s_i^2
    eye = eye_like(k, S)
    F = P.where(P.eq(eye, 1), 0.0, P.div(1.0, P.where(P.eq(E, 0), float("inf"), E)))
    utgu = L.matmul(mT(U), gU)
    vtgv = L.matmul(mT(V), gV)
    inner = P.add(P.mul(P.mul(F, P.sub(utgu, mT(utgu))), S.unsqueeze(-2)),
                  P.mul(S.unsqueeze(-1), P.mul(F, P.sub(vtgv, mT(vtgv)))))
    if gS is not None:
        inner = P.add(inner, diag_embed(gS))
    gA = L.matmul(L.matmul(U, inner), Vh)
    m, n = U.shape[-2], V.shape[-2]
    sinv = P.div(1.0, S)
    if m > k:
        proj = P.sub(gU, L.matmul(U, utgu))
        gA = P.add(gA, L.matmul(P.mul(proj, sinv.unsqueeze(-2)), Vh))
    if n > k:
        proj = P.sub(gV, L.matmul(V, vtgv))
        gA = P.add(gA, L.matmul(P.mul(U, sinv.unsqueeze(-2)), mT(proj)))
    return gA


def svd(A, full_matrices=True, *, driver=None, out=None):
    """msnb implementation of ``torch.linalg.svd`` (LAPACK gesdd on the host)."""
    _check("linalg.svd", A, square=False)
    U, S, Vh = _svd_parts(A, full_matrices)
    if needs_grad(A) and A.numel() == 0:
        record("LinalgSvdBackward0", (U, S, Vh), (A,), lambda *g: (P.mul(A, 0).detach(),))
    elif needs_grad(A):
        k = S.shape[-1]

        def bw(gU, gS, gVh):
            u, vh = (U[..., :k], Vh[..., :k, :]) if full_matrices else (U, Vh)
            if full_matrices:
                gU = gU[..., :k] if gU is not None else None
                gVh = gVh[..., :k, :] if gVh is not None else None
            return (_svd_backward(u, S, vh, gU, gS, gVh),)
        record("LinalgSvdBackward0", (U, S, Vh), (A,), bw)
    return _SVD(U, S, Vh)


def svdvals(A, *, driver=None, out=None):
    """msnb implementation of ``torch.linalg.svdvals``."""
    _check("linalg.svdvals", A, square=False)
    if not needs_grad(A):
        return wrap(K.svd(A, False, False)[1])
    return svd(A, full_matrices=False).S


def _check_uplo(UPLO):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper() == "U"


def eigh(A, UPLO="L", *, out=None):
    """msnb implementation of ``torch.linalg.eigh`` (LAPACK syevd on the host)."""
    _check("linalg.eigh", A)
    upper = _check_uplo(UPLO)
    w, V = (wrap(t) for t in K.eigh(A, upper, True))
    if needs_grad(A):
        def bw(gw, gV):
            if gV is None:
                return (L.matmul(P.mul(V, gw.unsqueeze(-2)), mT(V)),)
            n = w.shape[-1]
            M = L.matmul(mT(V), gV)
            M = P.mul(P.sub(M, mT(M)), 0.5)
            E = P.sub(w.unsqueeze(-2), w.unsqueeze(-1))  # E[i, j] = w_j - w_i
            eye = eye_like(n, w)
            inner = P.where(P.eq(eye, 1), 0.0, P.div(M, P.where(P.eq(E, 0), float("inf"), E)))
            if gw is not None:
                inner = P.add(inner, diag_embed(gw))
            return (L.matmul(L.matmul(V, inner), mT(V)),)
        record("LinalgEighBackward0", (w, V), (A,), bw)
    return _Eigh(w, V)


def eigvalsh(A, UPLO="L", *, out=None):
    """msnb implementation of ``torch.linalg.eigvalsh``."""
    _check("linalg.eigvalsh", A)
    if not needs_grad(A):
        return wrap(K.eigh(A, _check_uplo(UPLO), False)[0])
    return eigh(A, UPLO).eigenvalues


def eigvals(A, *, out=None):
    """msnb implementation of ``torch.linalg.eigvals`` (LAPACK geev on the host, as its gradient)."""
    _check("linalg.eigvals", A)
    w = wrap(K.eigvals(A))
    if needs_grad(A):
        record("LinalgEigBackward0", w, (A,), lambda g: (wrap(K.eigvals_grad(A, g)),), saved=(A,))
    return w


def eig(A, *, out=None):
    """msnb implementation of ``torch.linalg.eig``: complex eigenvalues and unit-norm eigenvectors of a
    real square matrix (LAPACK geev on the host, as its gradient)."""
    _check("linalg.eig", A)
    w, V = (wrap(t) for t in K.eig(A))
    if needs_grad(A):
        def bw(gw, gV):
            return (wrap(K.eig_grad(A, w, V, gw, gV)),)
        record("LinalgEigBackward0", (w, V), (A,), bw, saved=(A,))
    return _Eig(w, V)


# --- pseudo-inverse, least squares, rank --------------------------------------------------

def _tolerances(A, atol, rtol, rcond=None):
    """PyTorch's defaults: ``rtol = eps * max(m, n)`` unless ``atol > 0`` is given alone."""
    if rcond is not None:
        rtol = rcond
    m, n = A.shape[-2], A.shape[-1]
    eps = D.finfo(A.dtype).eps

    def arr(v):
        return v.detach().numpy().astype(np.float64) if hasattr(v, "numpy") else np.float64(v)
    a = arr(atol) if atol is not None else np.float64(0.0)
    if rtol is not None:
        r = arr(rtol)
    elif atol is not None and np.all(a > 0):
        r = np.float64(0.0)
    else:
        r = np.float64(eps * max(m, n))
    batch = tuple(A.shape[:-2])
    return np.broadcast_to(a, batch).copy(), np.broadcast_to(r, batch).copy()


def pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None, out=None):
    """msnb implementation of ``torch.linalg.pinv`` (SVD cut-off on the host; PyTorch's gradient
    ``-P^T G P^T + (I - A P)^T ... `` for a locally constant rank)."""
    _check("linalg.pinv", A, square=False)
    import mindspore as _mst
    a, r = _tolerances(A, atol, rtol, rcond)
    p = wrap(K.pinv(A, _mst.Tensor(a), _mst.Tensor(r), hermitian))
    if needs_grad(A):
        def bw(g):
            m, n = A.shape[-2], A.shape[-1]
            pt = mT(p)
            term1 = P.neg(L.matmul(L.matmul(pt, g), pt))
            left = P.sub(eye_like(m, A), L.matmul(A, p))  # I - A P   (m x m)
            right = P.sub(eye_like(n, A), L.matmul(p, A))  # I - P A  (n x n)
            term2 = L.matmul(L.matmul(left, mT(g)), L.matmul(p, pt))
            term3 = L.matmul(L.matmul(L.matmul(pt, p), mT(g)), right)
            return (P.add(P.add(term1, term2), term3),)
        record("LinalgPinvBackward0", p, (A,), bw, saved=(A,))
    return p


def pinverse(input, rcond=1e-15):
    """msnb implementation of ``torch.pinverse``."""
    return pinv(input, rtol=rcond)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """msnb implementation of ``torch.linalg.matrix_rank``."""
    _check("linalg.matrix_rank", A, square=False)
    from .creation import tensor
    if tol is not None:
        atol, rtol = tol, 0.0
    a, r = _tolerances(A, atol, rtol)
    with_grad_off = A.detach()
    if hermitian:
        s = P.abs(wrap(K.eigh(with_grad_off, False, False)[0]))
    else:
        s = wrap(K.svd(with_grad_off, False, False)[1])
    if s.shape[-1] == 0:
        from .creation import zeros
        return zeros(tuple(A.shape[:-2]), dtype=D.int64)
    smax = s.numpy().max(axis=-1)
    cut = np.maximum(a, r * smax)
    return P.gt(s, tensor(cut[..., None], dtype=s.dtype)).sum(-1)


def lstsq(A, B, rcond=None, *, driver=None):
    """msnb implementation of ``torch.linalg.lstsq``: the minimum-norm least-squares solution
    ``pinv(A) @ B`` (PyTorch's CPU default driver 'gelsy' gives the same for the ranks it
    determines); ``rank`` as gelsy reports it, residuals when m > n and A has full rank."""
    _check("torch.linalg.lstsq", A, square=False)
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    if driver is not None and driver not in drivers:
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    vec = B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vec else B
    if b.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    eps = D.finfo(A.dtype).eps
    rt = rcond if rcond is not None and rcond > 0 else eps * max(m, n)
    a2, b2 = _broadcast_batch(A, b)
    x = L.matmul(pinv(a2, rtol=rt), b2)
    from .creation import zeros
    rank = zeros(0, dtype=D.int64) if driver == "gels" else matrix_rank(a2, rtol=rt)
    sv = svdvals(a2.detach()) if driver in ("gelsd", "gelss") else zeros(0, dtype=A.dtype)
    full = rank.numel() > 0 and bool(np.all(rank.numpy() == min(m, n))) or (driver == "gels")
    if m > n and full and driver != "gelsy":
        res = P.sub(L.matmul(a2, x), b2)
        residuals = P.mul(res, res).sum(-2)
    elif needs_grad(A) or needs_grad(B):
        residuals = x.reshape(-1)[:0]  # empty, but on the graph as PyTorch's (it requires grad)
    else:
        residuals = zeros(0, dtype=A.dtype)
    return _Lstsq(x.squeeze(-1) if vec else x, residuals, rank, sv)


# --- matrix functions and products ---------------------------------------------------------

def matrix_exp(A):
    """msnb implementation of ``torch.linalg.matrix_exp`` (scipy's expm on the host; the gradient is
    the upper-right block of ``exp([[A^T, G], [0, A^T]])``)."""
    _check("linalg.matrix_exp", A)
    y = wrap(K.matrix_exp(A))
    if needs_grad(A):
        def bw(g):
            from .shape import cat
            from .creation import zeros_like
            at = mT(A)
            big = cat([cat([at, g], -1), cat([zeros_like(g), at], -1)], -2)
            n = A.shape[-1]
            return (wrap(K.matrix_exp(big))[..., :n, n:],)
        record("LinalgMatrixExpBackward0", y, (A,), bw, saved=(A,))
    return y


def matrix_power(A, n, *, out=None):
    """msnb implementation of ``torch.linalg.matrix_power`` (repeated squaring; n < 0 inverts)."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.ndim >= 2 else 1} by {A.shape[-1] if A.ndim else 1} matrices")
    if n == 0:
        from .creation import ones_like
        eye = P.mul(ones_like(A), eye_like(A.shape[-1], A))
        # connected to A with a zero gradient by a selection (``A * 0`` is NaN where A is infinite)
        return eye if not A.requires_grad else P.where(ones_like(A, dtype=D.bool), eye, A)
    if n < 0:
        A = inv(A)
        n = -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else L.matmul(result, base)
        n >>= 1
        if n:
            base = L.matmul(base, base)
    return result


def multi_dot(tensors, *, out=None):
    """msnb implementation of ``torch.linalg.multi_dot`` (left to right)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_vec, last_vec = tensors[0].ndim == 1, tensors[-1].ndim == 1
    if first_vec:
        tensors[0] = tensors[0].unsqueeze(0)
    if last_vec:
        tensors[-1] = tensors[-1].unsqueeze(-1)
    for i, t in enumerate(tensors):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    res = tensors[0]
    for t in tensors[1:]:
        res = L.matmul(res, t)
    if first_vec:
        res = res.squeeze(0)
    if last_vec:
        res = res.squeeze(-1)
    return res


def tensorinv(A, ind=2, *, out=None):
    """msnb implementation of ``torch.linalg.tensorinv``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = tuple(A.shape[ind:]) + tuple(A.shape[:ind])
    rows = int(np.prod(A.shape[:ind]))
    cols = int(np.prod(A.shape[ind:]))
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           "prod(self.shape[:ind]), but got " f"{cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(tuple(out_shape))


def tensorsolve(A, B, dims=None, *, out=None):
    """msnb implementation of ``torch.linalg.tensorsolve``."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        keep = [d for d in range(A.ndim) if d not in dims]
        A = A.permute((*keep, *dims))
    rest = tuple(A.shape[B.ndim:])
    rows = int(np.prod(B.shape)) if B.ndim else 1
    cols = int(np.prod(rest)) if rest else 1
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(tuple(rest))


def vander(x, N=None):
    """msnb implementation of ``torch.linalg.vander``: increasing powers ``x^0 .. x^(N-1)``."""
    from .shape import stack
    from .creation import ones_like
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x.dtype is D.bool:
        x = cast(x, D.int64)
    cols = [ones_like(x)] if n else []
    for _ in range(1, n):
        cols.append(P.mul(cols[-1], x))
    if not cols:
        from .creation import zeros
        return zeros(*x.shape, 0, dtype=x.dtype)
    return stack(cols, -1)


def vecdot(x, y, *, dim=-1, out=None):
    """msnb implementation of ``torch.linalg.vecdot``: ``sum(conj(x) * y, dim)``."""
    return P.mul(CX.conj(x), y).sum(dim)


# --- the older torch.* spellings ----------------------------------------------------------

_OldSVD = return_types.structseq("svd", ["U", "S", "V"])
_OldQR = return_types.structseq("qr", ["Q", "R"])
_OldSlogdet = return_types.structseq("slogdet", ["sign", "logabsdet"])

__all__ += ["inverse", "torch_svd", "torch_qr", "torch_cholesky", "torch_slogdet", "pinverse", "chain_matmul"]


def inverse(input, *, out=None):
    """msnb implementation of ``torch.inverse``."""
    return inv(input)


def torch_svd(input, some=True, compute_uv=True, *, out=None):
    """msnb implementation of ``torch.svd``: ``(U, S, V)`` with ``V`` (not ``Vh``); without
    ``compute_uv``, zero-filled ``U`` (m x m) and ``V`` (n x n)."""
    if not compute_uv:
        from .creation import zeros
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        return _OldSVD(zeros(*batch, m, m, dtype=input.dtype), svdvals(input),
                       zeros(*batch, n, n, dtype=input.dtype))
    U, S, Vh = svd(input, full_matrices=not some)
    return _OldSVD(U, S, mT(Vh))


def torch_qr(input, some=True, *, out=None):
    """msnb implementation of ``torch.qr`` (``some=False``: the complete factorisation)."""
    import warnings
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.", UserWarning, stacklevel=2)
    q, r = qr(input, "reduced" if some else "complete")
    return _OldQR(q, r)


def torch_cholesky(input, upper=False, *, out=None):
    """msnb implementation of ``torch.cholesky``."""
    import warnings
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=2)
    return cholesky(input, upper=upper)


def torch_slogdet(input):
    """msnb implementation of ``torch.slogdet``."""
    return _OldSlogdet(*slogdet(input))


def chain_matmul(*matrices, out=None):
    """msnb implementation of ``torch.chain_matmul``."""
    return multi_dot(matrices)
