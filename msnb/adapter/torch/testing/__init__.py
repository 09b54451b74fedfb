"""msnb implementation of ``torch.testing``: ``assert_close`` and ``make_tensor``."""

from __future__ import annotations

from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose"]


#: (rtol, atol) of the deprecated assert_allclose, per dtype
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5),
                        "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """PyTorch's deprecated spelling: ``assert_close`` with numbers and arrays made tensors."""
    from .._ops.creation import tensor
    from .._tensor import Tensor
    a = actual if isinstance(actual, Tensor) else tensor(actual)
    e = expected if isinstance(expected, Tensor) else tensor(expected, dtype=a.dtype)
    if rtol is None and atol is None:  # the deprecated function's own defaults
        rtol, atol = _ALLCLOSE_TOLERANCES.get(str(a.dtype).replace("torch.", ""), (0.0, 0.0))
    assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.testing")
