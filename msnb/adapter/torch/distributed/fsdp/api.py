"""msnb implementation of ``torch.distributed.fsdp.api``: FSDP1's enums and configuration classes."""

from __future__ import annotations

import dataclasses
from enum import Enum, auto

__all__ = ["ShardingStrategy", "BackwardPrefetch", "StateDictType", "MixedPrecision", "CPUOffload", "StateDictConfig",
           "FullStateDictConfig", "LocalStateDictConfig", "ShardedStateDictConfig", "OptimStateDictConfig",
           "FullOptimStateDictConfig", "LocalOptimStateDictConfig", "ShardedOptimStateDictConfig",
           "StateDictSettings", "OptimStateKeyType"]


class ShardingStrategy(Enum):
    """FSDP1's sharding strategies (msnb runs FULL_SHARD and SHARD_GRAD_OP, the same values)."""

    FULL_SHARD = auto()
    SHARD_GRAD_OP = auto()
    NO_SHARD = auto()
    HYBRID_SHARD = auto()
    _HYBRID_SHARD_ZERO2 = auto()


class BackwardPrefetch(Enum):
    """Accepted; msnb does not prefetch."""

    BACKWARD_PRE = auto()
    BACKWARD_POST = auto()


class StateDictType(Enum):
    """What ``FullyShardedDataParallel.state_dict()`` returns."""

    FULL_STATE_DICT = auto()
    LOCAL_STATE_DICT = auto()
    SHARDED_STATE_DICT = auto()


class OptimStateKeyType(Enum):
    PARAM_NAME = auto()
    PARAM_ID = auto()


@dataclasses.dataclass
class MixedPrecision:
    """msnb implementation of FSDP1's ``MixedPrecision``."""

    param_dtype: object = None
    reduce_dtype: object = None
    buffer_dtype: object = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = ()


@dataclasses.dataclass
class CPUOffload:
    """Accepted: on CPU msnb's tensors are in host memory already."""

    offload_params: bool = False


@dataclasses.dataclass
class StateDictConfig:
    offload_to_cpu: bool = False


@dataclasses.dataclass
class FullStateDictConfig(StateDictConfig):
    """``rank0_only=True``: only rank 0 gets the gathered values (the others an empty dict)."""

    rank0_only: bool = False


@dataclasses.dataclass
class LocalStateDictConfig(StateDictConfig):
    pass


@dataclasses.dataclass
class ShardedStateDictConfig(StateDictConfig):
    _use_dtensor: bool = False


@dataclasses.dataclass
class OptimStateDictConfig:
    offload_to_cpu: bool = True


@dataclasses.dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    rank0_only: bool = False


@dataclasses.dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    offload_to_cpu: bool = False


@dataclasses.dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    _use_dtensor: bool = False


@dataclasses.dataclass
class StateDictSettings:
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
