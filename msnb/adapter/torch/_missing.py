"""One error for every PyTorch name msnb lacks, in every namespace.

``torch.x``, ``torch.nn.functional.x``, ``tensor.x`` ...: when PyTorch 2.13
has the name (``_api_names``: a module's ``__all__``, and the other names of
PyTorch's own that its ``dir()`` shows) and msnb does not, reading it raises
:class:`NotSupportedError` (an ``AttributeError``, so ``hasattr`` stays
False) that names it and points to the support list.  A name PyTorch does not
have either gets PyTorch's own plain ``AttributeError`` message.
"""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["NotSupportedError", "not_supported_message", "missing_attribute", "module_getattr", "missing_tensor_attr"]

SUPPORT_HINT = "see the support list: python -m msnb.adapter.support --markdown"


class NotSupportedError(AttributeError):
    """A PyTorch API that msnb does not implement yet."""


def not_supported_message(qualname: str) -> str:
    return f"{qualname} is not supported by msnb yet ({SUPPORT_HINT})"


def missing_attribute(namespace: str, name: str) -> AttributeError:
    """The error for ``namespace.name`` that the adapter lacks: msnb's
    :class:`NotSupportedError` when PyTorch has it (a name or a submodule),
    else Python's usual ``AttributeError``."""
    from ._api_names import DIR_NAMES, MODULE_NAMES, SUBMODULES
    if name in MODULE_NAMES.get(namespace, ()) or name in DIR_NAMES.get(namespace, ()) \
            or f"{namespace}.{name}" in SUBMODULES:
        return NotSupportedError(not_supported_message(f"{namespace}.{name}"))
    return AttributeError(f"module '{namespace}' has no attribute '{name}'")


def module_getattr(namespace: str):
    """A module-level ``__getattr__`` for the adapter module standing for ``namespace``."""

    def __getattr__(name):
        from ._api_names import SUBMODULES
        if f"{namespace}.{name}" in SUBMODULES:
            # an adapter subpackage not imported yet (``torch.utils.tensorboard``) is imported on first use
            adapter = f"msnb.adapter.{namespace}.{name}"
            try:  # the adapter module may be a plain module (no subpackages): then there is none
                found = importlib.util.find_spec(adapter) is not None
            except (ImportError, ValueError):
                found = False
            if found:
                return importlib.import_module(adapter)
        raise missing_attribute(namespace, name)

    return __getattr__


def missing_tensor_attr(obj, name: str):
    """What ``Tensor.__getattr__`` raises for ``name``."""
    from ._api_names import TENSOR_METHODS
    if name in TENSOR_METHODS:
        raise NotSupportedError(not_supported_message(f"torch.Tensor.{name}"))
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
