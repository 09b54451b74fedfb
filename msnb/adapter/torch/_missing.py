"""One error for every PyTorch name msnb lacks, in every namespace.

``torch.x``, ``torch.nn.functional.x``, ``tensor.x`` ...: when PyTorch 2.13
has the name (``_api_names``) and msnb does not, reading it raises
:class:`NotSupportedError` (an ``AttributeError``, so ``hasattr`` stays
False) that names it and points to the support list.  A name PyTorch does not
have either gets PyTorch's own plain ``AttributeError`` message.
"""

from __future__ import annotations

__all__ = ["NotSupportedError", "not_supported_message", "module_getattr", "missing_tensor_attr"]

SUPPORT_HINT = "see the support list: python -m msnb.adapter.support --markdown"


class NotSupportedError(AttributeError):
    """A PyTorch API that msnb does not implement yet."""


def not_supported_message(qualname: str) -> str:
    return f"{qualname} is not supported by msnb yet ({SUPPORT_HINT})"


def module_getattr(namespace: str):
    """A module-level ``__getattr__`` for the adapter module standing for ``namespace``."""

    def __getattr__(name):
        from ._api_names import MODULE_NAMES
        if name in MODULE_NAMES.get(namespace, ()):
            raise NotSupportedError(not_supported_message(f"{namespace}.{name}"))
        raise AttributeError(f"module '{namespace}' has no attribute '{name}'")

    return __getattr__


def missing_tensor_attr(obj, name: str):
    """What ``Tensor.__getattr__`` raises for ``name``."""
    from ._api_names import TENSOR_METHODS
    if name in TENSOR_METHODS:
        raise NotSupportedError(not_supported_message(f"torch.Tensor.{name}"))
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
