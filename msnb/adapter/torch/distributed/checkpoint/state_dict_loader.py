"""msnb implementation of ``torch.distributed.checkpoint.state_dict_loader``: ``load`` / ``load_state_dict``."""

from __future__ import annotations

import warnings

from . import _dcp
from .state_dict_saver import _needs_group, _path, _single

__all__ = ["load", "load_state_dict"]


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None,
         no_dist=False):
    """msnb implementation of ``torch.distributed.checkpoint.load``: fills ``state_dict`` in place."""
    _single(no_dist, "load")
    path = _path(checkpoint_id, storage_reader, "load")
    _dcp.load_dir(state_dict, path, allow_partial_load=bool(getattr(planner, "allow_partial_load", False)))


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None):
    """msnb implementation of the older ``load_state_dict`` (deprecated in PyTorch, as here)."""
    warnings.warn("'load_state_dict' is deprecated and will be removed in future versions. Please use 'load' "
                  "instead.", FutureWarning, stacklevel=2)
    _needs_group(no_dist)
    return load(state_dict, storage_reader=storage_reader, process_group=process_group, no_dist=no_dist,
                planner=planner)
