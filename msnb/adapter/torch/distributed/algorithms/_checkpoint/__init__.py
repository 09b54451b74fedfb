"""msnb implementation of ``torch.distributed.algorithms._checkpoint``."""

from __future__ import annotations

__all__: list = []
