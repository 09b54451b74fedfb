"""msnb's ``torch._dynamo``: ``reset`` (msnb has no TorchDynamo; ``torch.compile``
runs modules as msnb graph-mode graphs, and ``reset`` drops them)."""

from __future__ import annotations

from ..compiler import is_compiling, reset

__all__ = ["reset", "is_compiling"]

from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch._dynamo")
