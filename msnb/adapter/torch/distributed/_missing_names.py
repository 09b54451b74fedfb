"""The 'not supported by msnb yet' error for PyTorch names the new distributed namespaces lack.

``torch.distributed.fsdp``, ``.tensor``, ``.checkpoint`` ... are not in
``_api_names.MODULE_NAMES``, so each of these modules lists the PyTorch 2.13
names it leaves out and answers them with msnb's error."""

from __future__ import annotations

from .._missing import NotSupportedError, not_supported_message
from .._missing import module_getattr as _adapter_getattr

__all__ = ["refuse", "module_getattr"]


def refuse(qualname: str) -> NotSupportedError:
    return NotSupportedError(not_supported_message(qualname))


def module_getattr(namespace: str, pytorch_names):
    """A module ``__getattr__``: PyTorch's names msnb lacks raise msnb's error (its submodules too, or
    they are imported when msnb has them), others Python's usual one."""
    known = frozenset(pytorch_names)
    fallback = _adapter_getattr(namespace)

    def __getattr__(name):
        if name in known:
            raise refuse(f"{namespace}.{name}")
        return fallback(name)

    return __getattr__
