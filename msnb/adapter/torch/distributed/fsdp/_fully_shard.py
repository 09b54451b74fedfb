"""msnb implementation of FSDP2's ``fully_shard`` (``torch.distributed.fsdp.fully_shard``).

Each parameter the module manages (its own and its submodules', except those
an inner ``fully_shard`` already manages) is replaced by this rank's
``torch.chunk`` piece along dim 0 (a ``ShardedParameter``: ``Shard(0)`` on a
1-D mesh).  Before the module's forward the pieces are all-gathered into the
full parameters (cast to ``mp_policy.param_dtype``); after it the pieces are
put back.  The all-gather's backward sums the full gradient over the mesh,
divides by its size and keeps this rank's piece (reduce-scatter with average,
as PyTorch), so the optimizer steps on pieces and N ranks train like one
process on the whole batch.  Everything runs in PyNative mode after the
forward has finished (no overlap of communication with compute).
"""

from __future__ import annotations

import dataclasses

from ...nn.modules.module import Module
from ..tensor import _collectives as C
from ..tensor._sharded import ShardedParameter
from ..tensor.placement_types import Shard

__all__ = ["fully_shard", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy",
           "UnshardHandle", "managed", "FSDPState"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _torch():
    import msnb.adapter.torch as torch
    return torch


@dataclasses.dataclass(frozen=True)
class MixedPrecisionPolicy:
    """msnb implementation of FSDP2's ``MixedPrecisionPolicy``."""

    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True


@dataclasses.dataclass
class OffloadPolicy:
    """msnb implementation of ``OffloadPolicy`` (no offloading)."""


@dataclasses.dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """msnb implementation of ``CPUOffloadPolicy``: accepted; msnb's tensors on CPU already live in host memory."""

    pin_memory: bool = True


class UnshardHandle:
    """What ``FSDPModule.unshard(async_op=True)`` returns: the gather has already run."""

    def wait(self) -> None:
        return None


class FSDPState:
    """What one ``fully_shard`` call manages: (owner module, name, piece, dim-0 sizes) per parameter."""

    def __init__(self, mesh, entries, mp_policy, reshard_after_forward, cast_inputs):
        self.mesh, self.entries, self.mp = mesh, entries, mp_policy
        self.group = mesh.get_group(0)
        self.reshard_after_forward = reshard_after_forward
        self.cast_inputs = cast_inputs
        self.gathered = False
        self.sync = True
        self.pending: dict = {}  # entry index -> whole local gradient kept while sync is off

    def _hold(self, i):
        """The gradient hook of entry ``i``: keep it while sync is off; add what was kept when it is on."""
        def hold(g):
            if not self.sync:
                self.pending[i] = g if i not in self.pending else self.pending[i] + g
                return None
            kept = self.pending.pop(i, None)
            return g if kept is None else g + kept
        return hold

    def gather(self, differentiable=True):
        torch = _torch()
        n = self.mesh.size()
        for i, (owner, name, piece, sizes) in enumerate(self.entries):
            if differentiable:
                full = C.all_gather_dim(piece, 0, sizes, self.group, reduce=self._hold(i), divide=n)
            else:
                with torch.no_grad():
                    full = C.all_gather_dim(piece.detach(), 0, sizes, self.group)
            if self.mp.param_dtype is not None and full.is_floating_point():
                full = full.to(self.mp.param_dtype)
            owner._parameters[name] = full  # the full value, in the graph of the piece
        self.gathered = True

    def reshard(self):
        for owner, name, piece, _ in self.entries:
            owner._parameters[name] = piece
        self.gathered = False


def managed(module) -> list:
    """Every ``FSDPState`` under ``module`` (its own first)."""
    return [m.__dict__["_msnb_fsdp"] for m in module.modules() if "_msnb_fsdp" in m.__dict__]


def _cast(obj, dtype):
    torch = _torch()
    if isinstance(obj, torch.Tensor):
        return obj.to(dtype) if obj.is_floating_point() else obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(_cast(o, dtype) for o in obj)
    if isinstance(obj, dict):
        return {k: _cast(v, dtype) for k, v in obj.items()}
    return obj


class FSDPModule:
    """msnb implementation of ``torch.distributed.fsdp.FSDPModule``: the class ``fully_shard`` mixes into a module."""

    def reshard(self) -> None:
        """Put this rank's pieces back in place (they are after every forward already)."""
        st = self.__dict__["_msnb_fsdp"]
        if st.gathered:
            st.reshard()

    def unshard(self, async_op: bool = False):
        """The full parameters in place (values, no gradient) until the next forward or ``reshard()``."""
        self.__dict__["_msnb_fsdp"].gather(differentiable=False)
        return UnshardHandle() if async_op else None

    def set_requires_gradient_sync(self, requires_gradient_sync: bool, *, recurse: bool = True) -> None:
        """False: backward keeps each whole local gradient (no reduce-scatter, the pieces' ``grad`` is
        untouched); the first backward after True adds what was kept and reduce-scatters the sum."""
        for st in (managed(self) if recurse else [self.__dict__["_msnb_fsdp"]]):
            st.sync = bool(requires_gradient_sync)

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The module's state dict with each sharded parameter as a DTensor of its piece, as PyTorch's FSDP2."""
        from ..tensor._sharded import is_sharded, state_value
        out = super().state_dict(*args, destination=destination, prefix=prefix, keep_vars=True)
        for k, v in out.items():
            if is_sharded(v):
                out[k] = state_value(v, keep_vars)
            elif not keep_vars and hasattr(v, "detach") and not hasattr(v, "full_tensor"):
                out[k] = v.detach()
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """DTensors, whole tensors or pieces, each copied into this rank's piece."""
        from ..tensor._sharded import is_sharded, load_value
        own = {}
        for mp, m in self.named_modules():
            for k, p in m._parameters.items():
                if p is not None and is_sharded(p):
                    own[mp + ("." if mp else "") + k] = p
        state_dict = {k: load_value(own[k], v) if k in own else v for k, v in state_dict.items()}
        return super().load_state_dict(state_dict, strict=strict)

    def set_reshard_after_forward(self, reshard_after_forward: bool, recurse: bool = True) -> None:
        """Accepted: msnb always reshards after forward (the values are the same)."""
        for st in (managed(self) if recurse else [self.__dict__["_msnb_fsdp"]]):
            st.reshard_after_forward = bool(reshard_after_forward)

    def set_reshard_after_backward(self, reshard_after_backward: bool, *, recurse: bool = True) -> None:
        """Accepted: pieces are all that is kept after backward."""

    def set_is_last_backward(self, is_last_backward: bool) -> None:
        """Accepted: every backward reduces its gradients."""

    def set_modules_to_forward_prefetch(self, modules) -> None:
        """Accepted: msnb gathers each module's parameters when its forward starts (no prefetch)."""

    def set_modules_to_backward_prefetch(self, modules) -> None:
        """Accepted: msnb has no backward prefetch."""


_CLASSES: dict = {}


def _fsdp_class(cls):
    if issubclass(cls, FSDPModule):
        return cls
    new = _CLASSES.get(cls)
    if new is None:
        new = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {"__module__": cls.__module__})
        _CLASSES[cls] = new
    return new


def _pieces(module, mesh, ignored):
    """Replace every parameter ``module`` manages by this rank's dim-0 piece; the entries."""
    group = mesh.get_group(0)
    inner = {id(m) for m in module.modules() if m is not module and "_msnb_fsdp" in m.__dict__}
    entries, seen = [], {}
    skip = {id(q) for q in (ignored or ())}

    def walk(m):
        for name, p in list(m._parameters.items()):
            if p is None or id(p) in skip:
                continue
            if isinstance(p, ShardedParameter):
                raise NotImplementedError(f"fully_shard over an already sharded parameter (tensor parallel + FSDP, "
                                          f"2-D) is not supported by msnb yet ({_SUPPORT})")
            if id(p) in seen:  # a shared (tied) parameter: one piece
                piece = seen[id(p)]
            else:
                if p.dim() == 0:
                    raise NotImplementedError(f"fully_shard of a 0-d parameter ({name}) is not supported by msnb "
                                              f"yet ({_SUPPORT})")
                sizes = C.chunk_sizes(p.shape[0], mesh.size())
                local = C.local_chunk(p.detach(), 0, group).clone()
                piece = ShardedParameter(local, p.requires_grad, dspec=(mesh, (Shard(0),), p.shape))
                piece.__dict__["_msnb_sizes"] = sizes
                seen[id(p)] = piece
            setattr(m, name, piece)
            entries.append((m, name, piece, piece.__dict__["_msnb_sizes"]))
        for child in m._modules.values():
            if child is not None and id(child) not in inner:
                walk(child)

    walk(module)
    return entries


def shard_module(module, mesh, mp_policy, reshard_after_forward=True, ignored_params=None, cast_inputs=True):
    """Shard ``module``'s parameters on the 1-D ``mesh`` and install the gather/reshard hooks."""
    if mesh.ndim != 1:
        raise NotImplementedError(f"fully_shard on a {mesh.ndim}-D mesh (HSDP) is not supported by msnb yet: pass "
                                  f"a 1-D mesh such as mesh['dp'] ({_SUPPORT})")
    st = FSDPState(mesh, _pieces(module, mesh, ignored_params), mp_policy, reshard_after_forward, cast_inputs)
    module.__dict__["_msnb_fsdp"] = st

    def pre(mod, args):
        st.gather()
        if st.cast_inputs and st.mp.param_dtype is not None:
            return _cast(tuple(args), st.mp.param_dtype)
        return None

    def post(mod, args, out):
        st.reshard()
        if st.mp.output_dtype is not None:
            return _cast(out, st.mp.output_dtype)
        return None

    module.register_forward_pre_hook(pre)
    module.register_forward_hook(post)
    return st


def fully_shard(module, *, mesh=None, reshard_after_forward=None, shard_placement_fn=None,
                mp_policy=MixedPrecisionPolicy(), offload_policy=OffloadPolicy(), ignored_params=None,
                dp_mesh_dims=None):
    """msnb implementation of ``torch.distributed.fsdp.fully_shard`` (a 1-D mesh; dim-0 shards)."""
    if isinstance(module, (list, tuple)):
        for m in module:
            fully_shard(m, mesh=mesh, reshard_after_forward=reshard_after_forward,
                        shard_placement_fn=shard_placement_fn, mp_policy=mp_policy, offload_policy=offload_policy,
                        ignored_params=ignored_params)
        return module
    if not isinstance(module, Module):
        raise ValueError(f"fully_shard does not support containers that do not implement forward: {module}")
    if "_msnb_fsdp" in module.__dict__:
        raise ValueError("fully_shard was already applied to this module")
    if shard_placement_fn is not None or dp_mesh_dims is not None:
        raise NotImplementedError(f"fully_shard(shard_placement_fn=..., dp_mesh_dims=...) is not supported by msnb "
                                  f"yet: parameters are sharded on dim 0 ({_SUPPORT})")
    if mesh is None:
        from ..device_mesh import init_device_mesh
        from .. import get_world_size
        mesh = init_device_mesh("cpu", (get_world_size(),))
    shard_module(module, mesh, mp_policy, reshard_after_forward is not False, ignored_params)
    module.__class__ = _fsdp_class(type(module))
    return module
