"""``torch._check`` and its siblings: raise PyTorch's exception type when a condition is False."""

from __future__ import annotations

__all__ = ["_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented", "_check_with",
           "_check_is_size", "_check_tensor_all", "_check_tensor_all_with"]

_DEFAULT = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
            "report an enhancement request to PyTorch.)")


def _check_with(error_type, cond, message=None):
    from ._tensor import Tensor
    if isinstance(cond, Tensor):
        raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                        "torch._check_tensor_all() to assert that all elements are true.")
    if not isinstance(cond, bool):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if bool(cond):
        return
    if message is None:
        text = _DEFAULT
    else:
        if not callable(message):
            raise TypeError("message must be a callable")
        text = str(message())
    raise error_type(text)


def _check(cond, message=None):
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)


def _check_is_size(i, message=None, *, max=None):  # noqa: A002 - PyTorch's keyword
    import warnings
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with guard_size_oblivious.     "
                  "Use _check(i >= 0) instead.", FutureWarning, stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _check_tensor_all_with(error_type, cond, message=None):
    from ._tensor import Tensor
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if str(cond.dtype) != "torch.bool":
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    if not bool(cond.all()):
        _check_with(error_type, False, message)


def _check_tensor_all(cond, message=None):
    _check_tensor_all_with(RuntimeError, cond, message)
