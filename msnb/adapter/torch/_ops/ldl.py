"""LDL factorisation of symmetric matrices: ``torch.linalg.ldl_factor`` / ``ldl_factor_ex`` /
``ldl_solve``.

MindSpore 2.10 has no LDL kernel: the factors are LAPACK's Bunch-Kaufman ``?sytrf`` on the host
(lower triangle, as PyTorch's CPU build calls it), so ``LD`` and the 1-based ``pivots`` (negative
for a 2x2 block) are PyTorch's; ``ldl_solve`` is ``?sytrs`` on those factors.  PyTorch has no
gradient for these (its OpInfo says so): the results are plain tensors.  Real floating dtypes only.
"""

from __future__ import annotations

import numpy as np

from .. import return_types

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

_LdlFactor = return_types.structseq("linalg_ldl_factor", ["LD", "pivots"])
_LdlFactorEx = return_types.structseq("linalg_ldl_factor_ex", ["LD", "pivots", "info"])


def _check_square(name, A):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if not A.dtype.is_floating_point:
        if A.dtype.is_complex:
            raise NotImplementedError(f"{name} of complex input is not supported by msnb yet (see the support "
                                      "list: docs/support.md)")
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_scalar_name(A.dtype)}")


def _scalar_name(dtype):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(str(dtype).replace("torch.", ""), str(dtype))


def _lapack(a, name):
    import scipy.linalg.lapack as lapack
    return getattr(lapack, ("s" if a.dtype == np.float32 else "d") + name)


def _sytrf(a):
    """``(LD, pivots, info)`` of every matrix of ``a`` (numpy, ``(..., n, n)``)."""
    n = a.shape[-1]
    flat = a.reshape((int(np.prod(a.shape[:-2], dtype=np.int64)), n, n))
    ld = np.zeros_like(flat)
    piv = np.tile(np.arange(1, n + 1, dtype=np.int32), (flat.shape[0], 1))
    info = np.zeros(flat.shape[0], np.int32)
    if n:
        fn = _lapack(a, "sytrf")
        for i, mat in enumerate(flat):
            f, p, inf = fn(mat, lower=1)
            ld[i], piv[i], info[i] = np.tril(f), p, max(int(inf), 0)
    batch = a.shape[:-2]
    return ld.reshape(a.shape), piv.reshape(batch + (n,)), info.reshape(batch)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """msnb implementation of ``torch.linalg.ldl_factor_ex`` (LAPACK ``?sytrf`` on the host)."""
    from .creation import tensor
    _check_square("torch.linalg.ldl_factor_ex", A)
    ld, piv, info = _sytrf(A.detach().numpy())
    if check_errors and (info > 0).any():
        raise _singular("torch.linalg.ldl_factor_ex", info)
    return _LdlFactorEx(tensor(ld, dtype=A.dtype), tensor(piv), tensor(info))


def _singular(name, info):
    from .matrix import LinAlgError
    flat = info.reshape(-1)
    b = int(np.nonzero(flat > 0)[0][0])
    where = f"(Batch element {b}): " if info.ndim else ""
    return LinAlgError(f"{name}: {where}The factorization could not be completed because the input is not "
                       f"invertible: D[{int(flat[b])},{int(flat[b])}] is exactly zero.")


def ldl_factor(A, *, hermitian=False, out=None):
    """msnb implementation of ``torch.linalg.ldl_factor``: raises for a singular matrix (PyTorch raises
    a RuntimeError there too)."""
    from .creation import tensor
    _check_square("torch.linalg.ldl_factor", A)
    ld, piv, info = _sytrf(A.detach().numpy())
    if (info > 0).any():
        raise _singular("torch.linalg.ldl_factor", info)
    return _LdlFactor(tensor(ld, dtype=A.dtype), tensor(piv))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """msnb implementation of ``torch.linalg.ldl_solve`` (LAPACK ``?sytrs`` on the factors)."""
    from .. import _dtype as D
    from .creation import tensor
    name = "torch.linalg.ldl_solve"
    _check_square(name, LD)
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if pivots.shape != LD.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape {list(pivots.shape)} instead")
    if pivots.dtype.is_floating_point or pivots.dtype.is_complex or pivots.dtype == D.bool:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_scalar_name(pivots.dtype)}")
    if B.dtype != LD.dtype:
        raise RuntimeError(f"{name}: Expected LD and B to have the same dtype, but got LD with dtype "
                           f"{LD.dtype} and B with dtype {B.dtype} instead")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b "
                           f"matrix is {B.shape[-2]} by {B.shape[-1]}")
    ld, piv, b = LD.detach().numpy(), pivots.numpy().astype(np.int32), B.detach().numpy()
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    count, k = int(np.prod(batch, dtype=np.int64)), b.shape[-1]
    ld = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((count, n, n))
    piv = np.broadcast_to(piv, batch + (n,)).reshape((count, n))
    b = np.broadcast_to(b, batch + (n, k)).reshape((count, n, k))
    x = np.zeros_like(b)
    if n and k:
        fn = _lapack(ld, "sytrs")
        for i in range(ld.shape[0]):
            x[i] = fn(ld[i], piv[i], b[i], lower=1)[0]
    return tensor(x.reshape(batch + (n, k)), dtype=LD.dtype)
