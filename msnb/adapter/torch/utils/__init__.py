"""msnb's ``torch.utils`` (``torch.utils.data`` lives in the ``data`` subpackage)."""

from __future__ import annotations

from . import data

__all__ = ["data"]


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.utils")
