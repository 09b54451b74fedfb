"""msnb implementation of ``torch.distributed.checkpoint.stateful``: objects ``save`` / ``load`` call
``state_dict()`` / ``load_state_dict()`` on."""

from __future__ import annotations

from typing import TypeVar

from ._dcp import Stateful

__all__ = ["Stateful", "StatefulT"]

StatefulT = TypeVar("StatefulT", bound=Stateful)
