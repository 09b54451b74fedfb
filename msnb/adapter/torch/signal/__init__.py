"""msnb's ``torch.signal`` (window functions in ``torch.signal.windows``)."""

from __future__ import annotations

from .._namespace import missing_attribute
from . import windows

__all__ = ["windows"]


def __getattr__(name):
    raise missing_attribute("torch.signal", name)
