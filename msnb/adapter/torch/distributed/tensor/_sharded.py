"""The parameter a sharded module holds: an msnb ``Parameter`` of this rank's piece, with DTensor's accessors.

PyTorch's FSDP2 and tensor parallel turn parameters into DTensors whose
``shape`` is the global one.  msnb keeps them ordinary ``Parameter``s (so
optimizers, ``state_dict`` and MindSpore see plain tensors) holding the local
piece -- ``p.shape`` is the local shape -- and adds ``device_mesh``,
``placements``, ``to_local()`` and ``full_tensor()`` as a DTensor has them.
"""

from __future__ import annotations

from ...nn.parameter import Parameter

__all__ = ["ShardedParameter", "as_dtensor", "gathered", "piece_of", "gathered_like", "is_sharded", "clip_grad_norm", "state_value", "load_value"]


class ShardedParameter(Parameter):
    """This rank's piece of a parameter laid over a mesh (``dspec``: mesh, placements, global shape)."""

    def __new__(cls, data=None, requires_grad=True, dspec=None):
        return Parameter.__new__(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True, dspec=None):
        Parameter.__init__(self, data, requires_grad)
        self.__dict__["_dspec"] = dspec

    @property
    def device_mesh(self):
        return self.__dict__["_dspec"][0]

    @property
    def placements(self):
        return self.__dict__["_dspec"][1]

    def to_local(self, *, grad_placements=None):
        return self

    def full_tensor(self, *, grad_placements=None):
        return as_dtensor(self).full_tensor()

    def redistribute(self, device_mesh=None, placements=None, **kwargs):
        return as_dtensor(self).redistribute(device_mesh, placements, **kwargs)


def as_dtensor(p):
    """A DTensor over ``p``'s local piece (differentiable: its gradients reach ``p``)."""
    from ._api import DTensor
    mesh, placements, shape = p.__dict__["_dspec"]
    return DTensor(p, mesh, placements, shape)


def gathered(p):
    """The whole value of a sharded parameter, without gradient."""
    return gathered_like(p, p)


def piece_of(p, full):
    """This rank's piece of ``full`` (a tensor of ``p``'s global shape), as ``p`` lays it out."""
    from . import _collectives as C
    from .placement_types import Shard
    mesh, placements, shape = p.__dict__["_dspec"]
    if tuple(full.shape) != tuple(shape):
        raise RuntimeError(f"size mismatch: a value of shape {tuple(full.shape)} for a parameter of global shape "
                           f"{tuple(shape)}")
    out = full.detach()
    for i, pl in enumerate(placements):
        if isinstance(pl, Shard):
            out = C.local_chunk(out, pl.dim, mesh.get_group(i))
    return out.clone()


def gathered_like(p, t):
    """The whole value of ``t``, a tensor laid out as ``p``'s piece (an optimizer state such as exp_avg)."""
    from ._api import DTensor
    import msnb.adapter.torch as torch
    mesh, placements, shape = p.__dict__["_dspec"]
    with torch.no_grad():
        return DTensor(t.detach(), mesh, placements, shape).full_tensor().clone()


def is_sharded(p) -> bool:
    return "_dspec" in getattr(p, "__dict__", {})


def clip_grad_norm(params, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """``clip_grad_norm_`` over sharded parameters: the norm of the whole gradients (pieces' sums over
    every mesh dimension that shards them), as PyTorch computes it on DTensor gradients."""
    import math

    import msnb.adapter.torch as torch
    from ... import distributed as dist
    from .placement_types import Shard
    norm_type = float(norm_type)
    inf = math.isinf(norm_type)
    op = dist.ReduceOp.MAX if inf else dist.ReduceOp.SUM
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    parts: dict = {}  # (mesh, sharded mesh dims) -> [local max or sum of |g|^p]
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            g = p.grad.detach().abs()
            v = (g.max() if inf else (g ** norm_type).sum()).float().reshape(1) if g.numel() else torch.zeros(1)
            mesh, placements, _ = p.__dict__["_dspec"] if is_sharded(p) else (None, (), None)
            dims = tuple(i for i, pl in enumerate(placements) if isinstance(pl, Shard))
            parts.setdefault((id(mesh), dims), (mesh, dims, []))[2].append(v)
        values = []
        for mesh, dims, vs in parts.values():
            v = torch.cat(vs).max().reshape(1) if inf else torch.cat(vs).sum().reshape(1)
            for i in dims:
                dist.all_reduce(v, op=op, group=mesh.get_group(i))
            values.append(v)
        allv = torch.cat(values)
        total = allv.max() if inf else allv.sum() ** (1.0 / norm_type)
        if error_if_nonfinite and not bool(total.isfinite().item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped.")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def state_value(p, keep_vars=False):
    """A sharded parameter as a state dict holds it: a DTensor of its piece (detached unless ``keep_vars``)."""
    from ._api import DTensor
    mesh, placements, shape = p.__dict__["_dspec"]
    return DTensor(p if keep_vars else p.detach(), mesh, placements, shape)


def load_value(p, value):
    """What to copy into the piece ``p`` from a state dict's ``value``: a DTensor's local piece, a whole
    tensor's piece, or the piece itself."""
    from ._api import DTensor
    if isinstance(value, DTensor):
        return value.to_local()
    if tuple(value.shape) != tuple(p.shape) and tuple(value.shape) == tuple(p.__dict__["_dspec"][2]):
        return piece_of(p, value)
    return value
