"""The parameter a sharded module holds: an msnb ``Parameter`` of this rank's piece, with DTensor's accessors.

PyTorch's FSDP2 and tensor parallel turn parameters into DTensors whose
``shape`` is the global one.  msnb keeps them ordinary ``Parameter``s (so
optimizers, ``state_dict`` and MindSpore see plain tensors) holding the local
piece -- ``p.shape`` is the local shape -- and adds ``device_mesh``,
``placements``, ``to_local()`` and ``full_tensor()`` as a DTensor has them.
"""

from __future__ import annotations

from ...nn.parameter import Parameter

__all__ = ["ShardedParameter", "as_dtensor", "gathered", "piece_of", "gathered_like"]


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
