"""The 'not supported by msnb yet' error for PyTorch names the new distributed namespaces lack.

``torch.distributed.fsdp``, ``.tensor``, ``.checkpoint`` ... are not in
``_api_names.MODULE_NAMES``, so each of these modules lists the PyTorch 2.13
names it leaves out and answers them with msnb's error."""

from __future__ import annotations

from .._missing import NotSupportedError, not_supported_message

__all__ = ["refuse", "module_getattr"]


def refuse(qualname: str) -> NotSupportedError:
    return NotSupportedError(not_supported_message(qualname))


def module_getattr(namespace: str, pytorch_names):
    """A module ``__getattr__``: PyTorch's names msnb lacks raise msnb's error, others Python's usual one."""
    known = frozenset(pytorch_names)

    def __getattr__(name):
        if name in known:
            raise refuse(f"{namespace}.{name}")
        raise AttributeError(f"module '{namespace}' has no attribute '{name}'")

    return __getattr__
