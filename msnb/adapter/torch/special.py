"""msnb's ``torch.special`` (see ``_ops/special_fns.py`` for which kernel computes what)."""

from __future__ import annotations

from ._interop import log_softmax as _log_softmax, softmax as _softmax
from ._namespace import missing_attribute
from ._tensor import Tensor
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


_POLYNOMIALS = {"chebyshev_polynomial_t": "chebyshev_t", "chebyshev_polynomial_u": "chebyshev_u",
                "chebyshev_polynomial_v": "chebyshev_v", "chebyshev_polynomial_w": "chebyshev_w",
                "shifted_chebyshev_polynomial_t": "shifted_chebyshev_t",
                "shifted_chebyshev_polynomial_u": "shifted_chebyshev_u",
                "shifted_chebyshev_polynomial_v": "shifted_chebyshev_v",
                "shifted_chebyshev_polynomial_w": "shifted_chebyshev_w", "hermite_polynomial_h": "hermite_h",
                "hermite_polynomial_he": "hermite_he", "laguerre_polynomial_l": "laguerre_l",
                "legendre_polynomial_p": "legendre_p"}


def _polynomial(name, kind):
    def fn(input, n, *, out=None):
        from . import _dtype as D
        from ._core import K, cast, wrap, write_out
        from ._ops.creation import tensor
        x = input if isinstance(input, Tensor) else tensor(input)
        nt = n if isinstance(n, Tensor) else tensor(n)
        rt = D.result_type(x, n)
        if not rt.is_floating_point:
            rt = D.get_default_dtype()
        return write_out(out, wrap(getattr(K, f"poly_{kind}")(cast(x, rt), nt)))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"msnb implementation of ``torch.special.{name}`` (PyTorch's recurrence, computed on the "
                  "host: MindSpore has no kernel for it; no gradient, as in PyTorch).")
    return fn


for _name, _kind in _POLYNOMIALS.items():
    globals()[_name] = _polynomial(_name, _kind)
__all__ += list(_POLYNOMIALS)
del _name, _kind


def __getattr__(name):
    raise missing_attribute("torch.special", name)


from . import _out_arg  # noqa: E402 - wraps the functions defined above
_out_arg.apply(globals(), "torch.special")
from . import _numpy_compat as _np_compat  # noqa: E402 - last: wraps the functions defined above
_np_compat.apply(globals(), "torch.special")
from . import _number_args  # noqa: E402 - after the bindings it wraps
_number_args.apply(globals(), "torch.special")
