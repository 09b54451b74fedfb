"""Randomized low-rank SVD and PCA: ``torch.svd_lowrank`` / ``torch.pca_lowrank``.

PyTorch's algorithm (Halko, Martinsson and Tropp 2009, algorithms 4.4 and 5.1):
a Gaussian test matrix ``R`` (n x q) sketches the range of ``A - M``, ``niter``
subspace (power) iterations sharpen it, each followed by a QR
orthonormalisation, and the small projection ``Q^H (A - M)`` is factored by an
exact SVD.  Everything is built from msnb's differentiable ops (matmul,
linalg.qr, linalg.svd, mean), so gradients flow through the same steps as in
PyTorch.  The test matrix is drawn from msnb's generator, not PyTorch's: the
factors match PyTorch's exactly only where the result does not depend on the
sketch (``q`` at least the rank of ``A - M``), as every randomized SVD.
"""

from __future__ import annotations

from .. import _dtype as D

__all__ = ["svd_lowrank", "pca_lowrank"]


def _dense(A):
    from .._sparse_coo import SparseCooTensor
    return A.to_dense() if type(A) is SparseCooTensor else A


def _sketch_dtype(A):
    """PyTorch's ``get_floating_dtype``: A's dtype when floating (or complex), else float32."""
    if A.dtype.is_complex or A.dtype in (D.float16, D.float32, D.float64):
        return A.dtype
    return D.float32


def _approximate_basis(A, q, niter, M):
    """An orthonormal (..., m, q) basis approximating the range of ``A - M``."""
    from .random import randn
    from .matrix import qr

    def minus_m(X, factor, fM):
        return X if M is None else X - fM(M).matmul(factor)

    R = randn(A.shape[-1], q, dtype=_sketch_dtype(A))
    Q = qr(minus_m(A.matmul(R), R, lambda m: m)).Q
    for _ in range(niter):
        Q = qr(minus_m(A.mH.matmul(Q), Q, lambda m: m.mH)).Q
        Q = qr(minus_m(A.matmul(Q), Q, lambda m: m)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    from .matrix import svd
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = _dense(M).broadcast_to(A.shape)
    if m < n:  # sketch the taller side: factor A^H and swap U and V at the end
        A = A.mH
        M = M.mH if M is not None else None
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = svd(B, full_matrices=False)
    U, V = Q.matmul(U), Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """msnb implementation of ``torch.svd_lowrank``: ``(U, S, V)`` with ``A - M ~ U diag(S) V^H``,
    ``U`` (..., m, q), ``S`` (..., q), ``V`` (..., n, q), by a randomized range finder with
    ``niter`` subspace iterations (PyTorch's algorithm, msnb's random test matrix)."""
    return _svd_lowrank(_dense(A), q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """msnb implementation of ``torch.pca_lowrank``: the randomized SVD of ``A`` after subtracting
    its column means (``center=True``); ``q`` defaults to ``min(6, m, n)``."""
    A = _dense(A)
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)
