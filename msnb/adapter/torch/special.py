"""msnb's ``torch.special`` (see ``_ops/special_fns.py`` for which kernel computes what)."""

from __future__ import annotations

from ._interop import log_softmax as _log_softmax, softmax as _softmax
from ._namespace import missing_attribute
from ._ops.pointwise import erf, exp2, expm1, log1p, round, sigmoid as expit, xlogy
from ._ops.reduction import logsumexp
from ._ops.special_fns import (airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, digamma, entr, erfc, erfcx,
                               erfinv, gammainc, gammaincc, gammaln, i0, i0e, i1, i1e, log_ndtr, logit,
                               modified_bessel_i0, modified_bessel_i1, modified_bessel_k0, modified_bessel_k1,
                               multigammaln, ndtr, ndtri, polygamma, scaled_modified_bessel_k0,
                               scaled_modified_bessel_k1, sinc, spherical_bessel_j0, xlog1py, zeta)

psi = digamma

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc",
           "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1",
           "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc",
           "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]


def softmax(input, dim, *, dtype=None):
    """msnb implementation of ``torch.special.softmax``."""
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """msnb implementation of ``torch.special.log_softmax``."""
    return _log_softmax(input, dim, dtype=dtype)


def __getattr__(name):
    raise missing_attribute("torch.special", name)
