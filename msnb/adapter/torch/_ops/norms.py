"""Vector and matrix norms: ``torch.linalg.vector_norm`` / ``matrix_norm`` /
``norm`` / ``cond`` and the older ``torch.norm``.

``vector_norm`` records PyTorch's own gradient (zero where the norm is zero,
ties of the inf-norm sharing the gradient); matrix norms are built from it,
from reductions and from ``svdvals``.
"""

from __future__ import annotations

from .. import _dtype as D
from .._core import cast, needs_grad, record
from . import complex as CX
from . import pointwise as P
from . import reduction as R

__all__ = ["vector_norm", "matrix_norm", "linalg_norm", "norm", "cond"]

_INF = float("inf")


def _dims(x, dim):
    if dim is None:
        return tuple(range(x.ndim))
    return tuple(d % max(x.ndim, 1) for d in ((dim,) if isinstance(dim, int) else dim))


def _prepare(name, x, dtype):
    if dtype is not None:
        dtype = D.to_torch_dtype(dtype)
        if not (x.dtype.is_floating_point or x.dtype.is_complex):
            raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                               f"{D._name_of(x.dtype)}")
        x = cast(x, dtype)
    elif not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {D._name_of(x.dtype)}")
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """msnb implementation of ``torch.linalg.vector_norm``."""
    x = _prepare("linalg.vector_norm", x, dtype)
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    ord = float(ord)
    dims = _dims(x, dim)
    if x.numel() == 0 and (ord < 0 or ord == _INF) and (dim is None or any(x.shape[d] == 0 for d in dims)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because the "
                           "operation does not have an identity")
    with _no_grad():
        a = _abs(x)
        res = _value(a, ord, dims)
    out_val = res if keepdim else (res.squeeze(dims) if dims else res)
    if needs_grad(x):
        def bw(g):
            from ..autograd.grad_mode import STATE
            # with create_graph the gradient must itself be differentiable in x: recompute
            aa, nn = (_abs(x), None) if STATE.enabled else (a, res)
            nn = _value(aa, ord, dims) if nn is None else nn
            gk = g if keepdim else _unsqueeze(g, dims, x.ndim)
            return (_vector_norm_grad(x, aa, nn, gk, ord, dims),)
        record("LinalgVectorNormBackward0", out_val, (x,), bw, saved=(x,))
    return out_val


def _abs(x):
    return CX.complex_abs(x) if x.dtype.is_complex else P.abs(x)


def _value(a, ord, dims):
    """The ``ord``-norm of the magnitudes ``a`` over ``dims`` (kept as size-1 dims)."""
    if ord == _INF:
        return R.amax(a, dims, keepdim=True)
    if ord == -_INF:
        return R.amin(a, dims, keepdim=True)
    if ord == 0:
        return R.sum(cast(P.ne(a, 0), a.dtype), dims, keepdim=True)
    if ord == 1:
        return R.sum(a, dims, keepdim=True)
    if ord == 2:
        return P.sqrt(R.sum(P.mul(a, a), dims, keepdim=True))
    return P.pow(R.sum(P.pow(a, ord), dims, keepdim=True), 1.0 / ord)


def _unsqueeze(g, dims, nd):
    for d in sorted(dims):
        g = g.unsqueeze(d)
    return g


def _sgn(x, a):
    """``x / |x|`` (0 at 0): ``sign`` for real, the unit phase for complex."""
    if not x.dtype.is_complex:
        return P.sign(x)
    safe = P.where(P.eq(a, 0), 1.0, a)
    scale = P.where(P.eq(a, 0), 0.0, P.div(1.0, safe))
    return P.mul(x, CX.complex(scale, scale * 0))


def _vector_norm_grad(x, a, norm, g, ord, dims):
    if ord == 0:
        return P.mul(x, 0)
    if ord == 1:
        return P.mul(_sgn(x, a), g)
    if ord in (_INF, -_INF):
        mask = cast(P.logical_or(P.eq(a, norm), P.isnan(a)), a.dtype)
        count = R.sum(mask, dims, keepdim=True)
        return P.mul(_sgn(x, a), P.mul(P.div(g, count), mask))
    zero = P.eq(norm, 0)
    if ord == 2:
        scale = P.where(zero, 0.0, P.div(g, P.where(zero, 1.0, norm)))
        return P.mul(x, scale)
    # general p: x |x|^(p-2) g / norm^(p-1)
    if ord < 1:
        mag = P.pow(P.where(P.eq(a, 0), 1.0, a), ord - 1)
        scale = P.div(g, P.pow(P.where(zero, 1.0, norm), ord - 1))
        gx = P.mul(P.mul(_sgn(x, a), mag), scale)
        return P.where(P.logical_or(P.eq(a, 0), zero), 0.0, gx) if not x.dtype.is_complex else gx
    scale = P.where(zero, 0.0, P.div(g, P.pow(P.where(zero, 1.0, norm), ord - 1)))
    return P.mul(P.mul(_sgn(x, a), P.pow(a, ord - 1)), scale)


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """msnb implementation of ``torch.linalg.matrix_norm`` ('fro', 'nuc', +-1, +-2, +-inf)."""
    A = _prepare("linalg.matrix_norm", A, dtype)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (d % A.ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        from .matrix import svdvals
        x = A.movedim((d0, d1), (-2, -1))
        s = svdvals(x)
        if ord == "nuc":
            r = s.sum(-1)
        elif ord == 2:
            r = R.amax(s, -1)
        else:
            r = R.amin(s, -1)
        if keepdim:
            r = _unsqueeze(r, (min(d0, d1), max(d0, d1)), A.ndim)
        return r
    if ord in (1, -1, _INF, -_INF):
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
        s = vector_norm(A, 1, sum_dim, keepdim=True)
        r = R.amax(s, red_dim, keepdim=True) if ord > 0 else R.amin(s, red_dim, keepdim=True)
        return r if keepdim else r.squeeze((d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """msnb implementation of ``torch.linalg.norm``."""
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
        if len(dim) != 1:
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Expected a number for ord but got {ord}")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """msnb implementation of ``torch.norm`` (the older API, kept by PyTorch)."""
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dim, keepdim, dtype=dtype)
        if p == "nuc":
            return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
        raise RuntimeError(f"norm(): unsupported p={p!r}")
    if dim is None:
        dim = tuple(range(input.ndim))
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


def cond(A, p=None, *, out=None):
    """msnb implementation of ``torch.linalg.cond``."""
    from .matrix import inv, svdvals
    if p in (None, 2, -2):
        s = svdvals(A)
        hi, lo = R.amax(s, -1), R.amin(s, -1)
        return P.div(hi, lo) if p != -2 else P.div(lo, hi)
    return P.mul(matrix_norm(A, p), matrix_norm(inv(A), p))

