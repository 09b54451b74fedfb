"""msnb implementation of ``torch.distributed.checkpoint.default_planner``: the planners' options.

msnb's ``save`` / ``load`` plan by themselves (every DTensor piece written
once, every target region read from the chunks that overlap it); a planner
passed to them carries its options: ``DefaultLoadPlanner(allow_partial_load=True)``
skips keys the checkpoint lacks, as PyTorch's.  Custom planner subclasses
(overriding the planning hooks) are not called."""

from __future__ import annotations

from .._missing_names import module_getattr as _module_getattr

__all__ = ["DefaultSavePlanner", "DefaultLoadPlanner"]


class DefaultSavePlanner:
    """msnb implementation of ``DefaultSavePlanner`` (options kept; msnb always flattens and dedups)."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True, dedup_replicated_tensors=None,
                 dedup_save_to_lowest_rank=False, enable_plan_caching=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.dedup_replicated_tensors = dedup_replicated_tensors
        self.dedup_save_to_lowest_rank = dedup_save_to_lowest_rank
        self.enable_plan_caching = enable_plan_caching


class DefaultLoadPlanner:
    """msnb implementation of ``DefaultLoadPlanner``: ``allow_partial_load`` applies."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True, allow_partial_load=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.allow_partial_load = allow_partial_load


__getattr__ = _module_getattr("torch.distributed.checkpoint.default_planner", (
    "create_default_local_load_plan", "create_default_global_load_plan", "create_default_local_save_plan",
    "create_default_global_save_plan"))
