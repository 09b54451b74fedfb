"""msnb's ``torch.linalg`` (real floating dtypes; see ``_ops/matrix.py`` and
``_ops/norms.py`` for which kernel computes what)."""

from __future__ import annotations

from ._namespace import missing_attribute
from ._ops.linalg import matmul
from ._ops.matrix import (LinAlgError, cholesky, cholesky_ex, det, eig, eigh, eigvals, eigvalsh, inv, inv_ex, lstsq,
                          matrix_exp, matrix_power, matrix_rank, multi_dot, pinv, qr, slogdet, solve, solve_ex,
                          solve_triangular, svd, svdvals, tensorinv, tensorsolve, vander, vecdot)
from ._ops.matrix import diagonal as _diagonal
from ._ops.factorized import householder_product
from ._ops.lu import linalg_lu as lu, linalg_lu_solve as lu_solve, lu_factor, lu_factor_ex
from ._ops.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ._ops.norms import cond, matrix_norm, vector_norm
from ._ops.norms import linalg_norm as norm

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve",
           "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
           "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular",
           "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """msnb implementation of ``torch.linalg.diagonal`` (a copy; PyTorch returns a view)."""
    return _diagonal(A, offset, dim1, dim2)


def cross(input, other, *, dim=-1, out=None):
    """msnb implementation of ``torch.linalg.cross`` (broadcasting; ``dim`` must have size 3)."""
    from ._ops.linalg import cross as _cross
    return _cross(input, other, dim)


def __getattr__(name):
    raise missing_attribute("torch.linalg", name)


from . import _out_arg  # noqa: E402 - wraps the functions defined above
_out_arg.apply(globals(), "torch.linalg")
from . import _numpy_compat as _np_compat  # noqa: E402 - last: wraps the functions defined above
_np_compat.apply(globals(), "torch.linalg")
