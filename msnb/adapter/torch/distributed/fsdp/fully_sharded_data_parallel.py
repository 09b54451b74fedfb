"""msnb implementation of FSDP1's ``FullyShardedDataParallel``.

The wrapper shards the wrapped module's parameters as ``fully_shard`` does
(per parameter, dim 0: PyTorch's ``use_orig_params=True`` layout, not one
flat parameter) on the process group's ranks, gathers them for the forward
and reduce-scatters (averages) the gradients in backward.  ``state_dict()``
follows ``state_dict_type``: FULL_STATE_DICT gathers every parameter (only
rank 0 gets them with ``FullStateDictConfig(rank0_only=True)``);
SHARDED_STATE_DICT gives DTensors of this rank's pieces (global shapes, as
PyTorch's ShardedTensor / DTensor: the form ``torch.distributed.checkpoint``
saves), LOCAL_STATE_DICT the pieces as plain tensors (PyTorch: a flat
parameter's shard).  Keys are the
wrapped module's own names, as PyTorch's.
"""

from __future__ import annotations

import contextlib

from ...nn.modules.module import Module
from ..tensor._sharded import ShardedParameter, gathered, load_value, piece_of, state_value
from . import _fully_shard as F2
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,
                  LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision, OptimStateDictConfig,
                  OptimStateKeyType, ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy,
                  StateDictConfig, StateDictSettings, StateDictType)

__all__ = ["FullyShardedDataParallel", "StateDictType", "ShardingStrategy", "MixedPrecision", "CPUOffload",
           "BackwardPrefetch", "FullStateDictConfig", "ShardedStateDictConfig", "LocalStateDictConfig",
           "StateDictConfig", "OptimStateDictConfig", "FullOptimStateDictConfig", "ShardedOptimStateDictConfig",
           "LocalOptimStateDictConfig", "StateDictSettings", "OptimStateKeyType", "FSDP_WRAPPED_MODULE",
           "FSDP_PREFIX"]

FSDP_WRAPPED_MODULE = "_fsdp_wrapped_module"
FSDP_PREFIX = FSDP_WRAPPED_MODULE + "."
_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"
_DEFAULT_CONFIG = {StateDictType.FULL_STATE_DICT: FullStateDictConfig, StateDictType.LOCAL_STATE_DICT:
                   LocalStateDictConfig, StateDictType.SHARDED_STATE_DICT: ShardedStateDictConfig}


def _dist():
    from ... import distributed
    return distributed


def _mesh_of(process_group, device_mesh):
    from ..device_mesh import DeviceMesh, init_device_mesh
    dist = _dist()
    if device_mesh is not None:
        return device_mesh
    if process_group is None:
        return init_device_mesh("cpu", (dist.get_world_size(),))
    if isinstance(process_group, tuple):
        raise NotImplementedError(f"FullyShardedDataParallel with a (shard, replicate) group pair (hybrid sharding) "
                                  f"is not supported by msnb yet ({_SUPPORT})")
    ranks = dist.get_process_group_ranks(process_group)
    return DeviceMesh("cpu", ranks, _groups=[process_group])


class FullyShardedDataParallel(Module):
    """msnb implementation of ``torch.distributed.fsdp.FullyShardedDataParallel``."""

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None, auto_wrap_policy=None,
                 backward_prefetch=BackwardPrefetch.BACKWARD_PRE, mixed_precision=None, ignored_modules=None,
                 param_init_fn=None, device_id=None, sync_module_states=False, forward_prefetch=False,
                 limit_all_gathers=True, use_orig_params=False, ignored_states=None, device_mesh=None):
        super().__init__()
        dist = _dist()
        if not dist.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        if strategy not in (ShardingStrategy.FULL_SHARD, ShardingStrategy.SHARD_GRAD_OP):
            raise NotImplementedError(f"FullyShardedDataParallel(sharding_strategy={strategy}) is not supported by "
                                      f"msnb yet: FULL_SHARD and SHARD_GRAD_OP ({_SUPPORT})")
        if ignored_modules or ignored_states or param_init_fn is not None:
            raise NotImplementedError(f"FullyShardedDataParallel(ignored_modules=, ignored_states=, param_init_fn=) "
                                      f"is not supported by msnb yet ({_SUPPORT})")
        mesh = _mesh_of(process_group, device_mesh)
        if sync_module_states:
            src = mesh._mesh.reshape(-1)[0]
            for t in list(module.parameters()) + list(module.buffers()):
                dist.broadcast(t, int(src), group=mesh.get_group(0))
        mp = mixed_precision or MixedPrecision()
        if mp.buffer_dtype is not None:
            for m in module.modules():
                for k, b in list(m._buffers.items()):
                    if b is not None and b.is_floating_point():
                        m._buffers[k] = b.to(mp.buffer_dtype)
        self._fsdp_wrapped_module = module
        policy = F2.MixedPrecisionPolicy(mp.param_dtype, mp.reduce_dtype, None,
                                         bool(mp.cast_forward_inputs or mp.cast_root_forward_inputs))
        F2.shard_module(module, mesh, policy)
        self.__dict__["_msnb_fsdp1"] = {"mesh": mesh, "type": StateDictType.FULL_STATE_DICT,
                                        "config": FullStateDictConfig(), "optim_config": OptimStateDictConfig(),
                                        "strategy": strategy, "auto_wrap_policy": auto_wrap_policy}

    @property
    def module(self):
        """The wrapped module."""
        return self._fsdp_wrapped_module

    def forward(self, *args, **kwargs):
        return self._fsdp_wrapped_module(*args, **kwargs)

    # --- state dicts -------------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        info = self.__dict__["_msnb_fsdp1"]
        inner = self._fsdp_wrapped_module.state_dict(prefix=prefix, keep_vars=True)
        full = info["type"] is StateDictType.FULL_STATE_DICT
        if full and getattr(info["config"], "rank0_only", False) and _dist().get_rank() != 0:
            for v in inner.values():
                if isinstance(v, ShardedParameter):
                    gathered(v)  # every rank takes part in the gathers; rank 0 keeps them
            return type(inner)()
        out = type(inner)()
        sharded = info["type"] is StateDictType.SHARDED_STATE_DICT
        for k, v in inner.items():
            if full and isinstance(v, ShardedParameter):
                out[k] = gathered(v)
            elif sharded and isinstance(v, ShardedParameter):
                out[k] = state_value(v, keep_vars)  # a DTensor of the piece (PyTorch: ShardedTensor / DTensor)
            else:
                out[k] = v if keep_vars else v.detach()
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        info = self.__dict__["_msnb_fsdp1"]
        if info["type"] is StateDictType.FULL_STATE_DICT:
            own = dict(self._fsdp_wrapped_module.named_parameters())
            state_dict = {k: piece_of(own[k], v) if isinstance(own.get(k), ShardedParameter) else v
                          for k, v in state_dict.items()}
        else:
            own = dict(self._fsdp_wrapped_module.named_parameters())
            state_dict = {k: load_value(own[k], v) if isinstance(own.get(k), ShardedParameter) else v
                          for k, v in state_dict.items()}
        return self._fsdp_wrapped_module.load_state_dict(state_dict, strict=strict)

    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Set the type on every FSDP instance in ``module``; returns the previous settings."""
        old = None
        for m in module.modules():
            info = m.__dict__.get("_msnb_fsdp1")
            if info is None:
                continue
            if old is None:
                old = StateDictSettings(info["type"], info["config"], info["optim_config"])
            info["type"] = state_dict_type
            info["config"] = state_dict_config or _DEFAULT_CONFIG[state_dict_type]()
            info["optim_config"] = optim_state_dict_config or OptimStateDictConfig()
        if old is None:
            raise ValueError("set_state_dict_type: the module holds no FullyShardedDataParallel instance")
        return old

    @staticmethod
    def get_state_dict_type(module):
        for m in module.modules():
            info = m.__dict__.get("_msnb_fsdp1")
            if info is not None:
                return StateDictSettings(info["type"], info["config"], info["optim_config"])
        raise ValueError("get_state_dict_type: the module holds no FullyShardedDataParallel instance")

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """msnb implementation of ``FullyShardedDataParallel.state_dict_type`` (a context manager)."""
        old = FullyShardedDataParallel.set_state_dict_type(module, state_dict_type, state_dict_config,
                                                           optim_state_dict_config)
        try:
            yield
        finally:
            FullyShardedDataParallel.set_state_dict_type(module, old.state_dict_type, old.state_dict_config,
                                                         old.optim_state_dict_config)

    # --- gradients ---------------------------------------------------------------------------
    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Clip the gradients by the norm of the whole gradients over every rank's pieces (returns it)."""
        from ..tensor._sharded import clip_grad_norm
        return clip_grad_norm(list(self.parameters()), max_norm, norm_type)

    def summon_full_params(self, *args, **kwargs):
        raise NotImplementedError(f"FullyShardedDataParallel.summon_full_params is not supported by msnb yet "
                                  f"({_SUPPORT})")
