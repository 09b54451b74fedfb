"""msnb implementation of ``torch.distributed.fsdp``: FSDP2's ``fully_shard`` and FSDP1's ``FullyShardedDataParallel``.

Both really shard: each rank keeps its dim-0 piece of every parameter, the
pieces are all-gathered before the forward and the gradients reduce-scattered
(averaged) in backward, on MindSpore's collectives (see ``_fully_shard``)."""

from __future__ import annotations

from .._missing_names import module_getattr as _module_getattr
from ._fully_shard import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy, UnshardHandle,
                           fully_shard)
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,
                  LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision, OptimStateDictConfig,
                  OptimStateKeyType, ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy,
                  StateDictConfig, StateDictSettings, StateDictType)
from . import wrap
from .fully_sharded_data_parallel import FullyShardedDataParallel

__all__ = ["BackwardPrefetch", "CPUOffload", "FullOptimStateDictConfig", "FullStateDictConfig",
           "FullyShardedDataParallel", "LocalOptimStateDictConfig", "LocalStateDictConfig", "MixedPrecision",
           "OptimStateDictConfig", "OptimStateKeyType", "ShardedOptimStateDictConfig", "ShardedStateDictConfig",
           "ShardingStrategy", "StateDictConfig", "StateDictSettings", "StateDictType", "CPUOffloadPolicy",
           "FSDPModule", "fully_shard", "MixedPrecisionPolicy", "OffloadPolicy", "UnshardHandle", "wrap"]

__getattr__ = _module_getattr("torch.distributed.fsdp", ("DataParallelMeshDims", "register_fsdp_forward_method",
                                                         "share_comm_ctx"))
