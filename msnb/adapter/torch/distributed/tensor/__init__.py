"""msnb implementation of ``torch.distributed.tensor``: DTensor, its placements and ``distribute_tensor``.

See ``_api`` for what a DTensor computes; ``distribute_module`` and the
random factories (``rand``/``randn``: PyTorch's sharded RNG offsets) are not
supported and say so."""

from __future__ import annotations

from .._missing_names import module_getattr as _module_getattr
from ._api import DTensor, distribute_tensor, empty, full, ones, zeros
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "distribute_tensor", "Shard", "Replicate", "Partial", "Placement", "ones", "empty", "full",
           "zeros"]

__getattr__ = _module_getattr("torch.distributed.tensor", ("distribute_module", "rand", "randn"))
