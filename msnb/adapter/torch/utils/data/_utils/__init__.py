"""Helpers for msnb's ``torch.utils.data`` (collation)."""

from . import collate

__all__ = ["collate"]
