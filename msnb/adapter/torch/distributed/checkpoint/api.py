"""msnb implementation of ``torch.distributed.checkpoint.api``."""

from __future__ import annotations

from ._dcp import CheckpointException

__all__ = ["CheckpointException"]
