"""The error a ``torch.<namespace>`` module raises for a name it lacks
(one definition: :func:`msnb.adapter.torch._missing.missing_attribute`)."""

from __future__ import annotations

from ._missing import missing_attribute

__all__ = ["missing_attribute"]
