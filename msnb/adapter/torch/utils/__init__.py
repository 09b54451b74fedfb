"""msnb's ``torch.utils`` (``torch.utils.data`` lives in the ``data`` subpackage)."""

from __future__ import annotations

from . import data

__all__ = ["data"]
