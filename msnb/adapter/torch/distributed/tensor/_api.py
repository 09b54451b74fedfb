"""msnb's ``DTensor``: a global tensor laid over a ``DeviceMesh`` by one placement per mesh dimension.

Each rank holds its local piece (an ordinary msnb tensor, so autograd runs on
it); ``redistribute`` moves between ``Shard(d)``, ``Replicate()`` and (from)
``Partial()`` with the collectives of ``_collectives``, whose backwards are
PyTorch's.  Elementwise arithmetic and the common pointwise functions work on
DTensors of the same mesh, placements and shape; anything else is refused by
name (msnb has no sharding propagation rules beyond those).
"""

from __future__ import annotations

import math

from .._missing_names import refuse
from . import _collectives as C
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "distribute_tensor", "ones", "zeros", "empty", "full"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _torch():
    import msnb.adapter.torch as torch
    return torch


def _normalize(placements, mesh, ndim):
    if placements is None:
        placements = [Replicate()] * mesh.ndim
    placements = tuple(placements)
    if len(placements) != mesh.ndim:
        raise ValueError(f"`placements` must have the same length as `device_mesh.ndim`! Found placements length: "
                         f"{len(placements)}, and device_mesh.ndim: {mesh.ndim}.")
    out = []
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"placements must be Shard, Replicate or Partial, got {p!r}")
        if isinstance(p, Shard):
            if not -max(ndim, 1) <= p.dim < max(ndim, 1):
                raise IndexError(f"Shard(dim={p.dim}) is out of range for a tensor of {ndim} dimensions")
            p = Shard(p.dim % ndim)
        out.append(p)
    dims = [p.dim for p in out if isinstance(p, Shard)]
    if len(dims) != len(set(dims)):
        raise NotImplementedError(f"sharding one tensor dimension over several mesh dimensions ({out}) is not "
                                  f"supported by msnb yet ({_SUPPORT})")
    return tuple(out)


def _mesh(device_mesh):
    if device_mesh is not None:
        return device_mesh
    from ..device_mesh import init_device_mesh
    from .. import get_world_size
    return init_device_mesh("cpu", (get_world_size(),))


class DTensor:
    """msnb implementation of ``torch.distributed.tensor.DTensor`` (not a ``torch.Tensor`` subclass: see the docs)."""

    def __init__(self, local, mesh, placements, shape):
        object.__setattr__(self, "_local_tensor", local)
        object.__setattr__(self, "_spec", (mesh, tuple(placements), _torch().Size(shape)))

    # --- making and unmaking ---------------------------------------------------------------
    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False, shape=None, stride=None,
                   grad_placements=None):
        mesh = _mesh(device_mesh)
        placements = _normalize(placements, mesh, local_tensor.dim())
        if shape is None:
            shape = list(local_tensor.shape)
            for i, p in enumerate(placements):
                if isinstance(p, Shard):
                    shape[p.dim] *= mesh.size(i)  # PyTorch assumes even shards unless shape= is given
        return DTensor(local_tensor, mesh, placements, shape)

    def to_local(self, *, grad_placements=None):
        return self._local_tensor

    def full_tensor(self, *, grad_placements=None):
        return self.redistribute(self.device_mesh, [Replicate()] * self.device_mesh.ndim).to_local()

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False, forward_dtype=None,
                     backward_dtype=None):
        mesh = self.device_mesh if device_mesh is None else device_mesh
        if mesh != self.device_mesh:
            raise NotImplementedError(f"redistribute to another DeviceMesh is not supported by msnb yet ({_SUPPORT})")
        target = _normalize(placements if placements is not None else self.placements, mesh, self.ndim)
        local = self._local_tensor
        if forward_dtype is not None:
            local = local.to(forward_dtype)
        for i, (src, dst) in enumerate(zip(self.placements, target)):
            if src == dst:
                continue
            group = mesh.get_group(i)
            if isinstance(src, Partial):
                if isinstance(dst, Partial):
                    raise NotImplementedError(f"redistribute {src!r} -> {dst!r} is not supported by msnb yet ({_SUPPORT})")
                local = C.all_reduce_forward(local, group)
                if src.reduce_op == "avg":
                    local = local / mesh.size(i)
                if isinstance(dst, Shard):  # reduce-scatter: every rank's gradient feeds every chunk
                    local = C.local_chunk(C.all_reduce_backward(local, group), dst.dim, group)
                continue
            if isinstance(dst, Partial):
                raise NotImplementedError(f"redistribute {src!r} -> {dst!r} is not supported by msnb yet ({_SUPPORT})")
            if isinstance(src, Shard):
                sizes = C.chunk_sizes(self.shape[src.dim], mesh.size(i))
                local = C.all_gather_dim(local, src.dim, sizes, group)
            if isinstance(dst, Shard):
                local = C.local_chunk(local, dst.dim, group)
        return DTensor(local, mesh, target, self.shape)

    # --- metadata ----------------------------------------------------------------------------
    @property
    def device_mesh(self):
        return self._spec[0]

    @property
    def placements(self):
        return self._spec[1]

    @property
    def shape(self):
        return self._spec[2]

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self):
        return self._local_tensor.dtype

    @property
    def device(self):
        return self._local_tensor.device

    @property
    def requires_grad(self) -> bool:
        return self._local_tensor.requires_grad

    def requires_grad_(self, requires_grad=True):
        self._local_tensor.requires_grad_(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self._local_tensor.is_leaf

    @property
    def grad(self):
        g = self._local_tensor.grad
        return None if g is None else DTensor(g, self.device_mesh, self.placements, self.shape)

    def detach(self):
        return DTensor(self._local_tensor.detach(), self.device_mesh, self.placements, self.shape)

    def __repr__(self):
        return (f"DTensor(local_tensor={self._local_tensor!r}, device_mesh={self.device_mesh!r}, "
                f"placements={self.placements!r})")

    def __reduce_ex__(self, protocol):
        raise NotImplementedError("saving or pickling a DTensor (torch.save of a sharded state dict) is not "
                                  "supported by msnb yet: save dt.full_tensor(), get_model_state_dict(model, "
                                  "options=StateDictOptions(full_state_dict=True)) or dt.to_local() "
                                  f"({_SUPPORT})")

    def __setattr__(self, name, value):
        raise AttributeError(f"msnb's DTensor does not take attribute {name!r}")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise refuse(f"torch.distributed.tensor.DTensor.{name}")

    # --- elementwise math --------------------------------------------------------------------
    def _pointwise(self, fn, name, *, linear=False):
        if any(isinstance(p, Partial) for p in self.placements) and not linear:
            raise NotImplementedError(f"DTensor.{name} on a Partial DTensor is not supported by msnb yet: "
                                      f"redistribute it first ({_SUPPORT})")
        return DTensor(fn(self._local_tensor), self.device_mesh, self.placements, self.shape)

    def _binary(self, other, fn, name):
        torch = _torch()
        partial = any(isinstance(p, Partial) for p in self.placements)
        if isinstance(other, DTensor):
            if other.device_mesh != self.device_mesh or other.placements != self.placements or \
                    other.shape != self.shape:
                raise NotImplementedError(
                    f"DTensor {name} of {self.placements} {tuple(self.shape)} with {other.placements} "
                    f"{tuple(other.shape)}: msnb computes only DTensors of the same mesh, placements and shape "
                    f"(redistribute one first) ({_SUPPORT})")
            if partial and name not in ("add", "sub"):
                raise NotImplementedError(f"DTensor.{name} of two Partial DTensors is not supported by msnb yet "
                                          f"({_SUPPORT})")
            return DTensor(fn(self._local_tensor, other._local_tensor), self.device_mesh, self.placements,
                           self.shape)
        if isinstance(other, torch.Tensor):
            raise RuntimeError(f"aten.{name}.Tensor: got mixed torch.Tensor and DTensor, need to convert all "
                               "torch.Tensor to DTensor before calling distributed operators!")
        if not isinstance(other, (int, float, bool)):
            return NotImplemented
        if partial and name not in ("mul", "div"):
            raise NotImplementedError(f"DTensor.{name} of a Partial DTensor with a number is not supported by msnb "
                                      f"yet ({_SUPPORT})")
        return DTensor(fn(self._local_tensor, other), self.device_mesh, self.placements, self.shape)

    def __add__(self, o):
        return self._binary(o, lambda a, b: a + b, "add")

    def __radd__(self, o):
        return self._binary(o, lambda a, b: b + a, "add")

    def __sub__(self, o):
        return self._binary(o, lambda a, b: a - b, "sub")

    def __rsub__(self, o):
        return self._binary(o, lambda a, b: b - a, "sub")

    def __mul__(self, o):
        return self._binary(o, lambda a, b: a * b, "mul")

    def __rmul__(self, o):
        return self._binary(o, lambda a, b: b * a, "mul")

    def __truediv__(self, o):
        return self._binary(o, lambda a, b: a / b, "div")

    def __neg__(self):
        return self._pointwise(lambda t: -t, "neg", linear=True)

    add, sub, mul, div = __add__, __sub__, __mul__, __truediv__

    def relu(self):
        return self._pointwise(lambda t: t.relu(), "relu")

    def sigmoid(self):
        return self._pointwise(lambda t: t.sigmoid(), "sigmoid")

    def tanh(self):
        return self._pointwise(lambda t: t.tanh(), "tanh")

    def exp(self):
        return self._pointwise(lambda t: t.exp(), "exp")

    def abs(self):
        return self._pointwise(lambda t: t.abs(), "abs")

    def pow(self, exponent):
        if not isinstance(exponent, (int, float)):
            raise NotImplementedError(f"DTensor.pow with a tensor exponent is not supported by msnb yet ({_SUPPORT})")
        return self._pointwise(lambda t: t ** exponent, "pow")

    __pow__ = pow

    def to(self, dtype):
        torch = _torch()
        if not isinstance(dtype, torch.dtype):
            raise NotImplementedError(f"DTensor.to(device) is not supported by msnb yet: dtypes only ({_SUPPORT})")
        return self._pointwise(lambda t: t.to(dtype), "to", linear=True)


def _broadcast_from(tensor, mesh, src_data_rank):
    """``tensor`` as rank ``src_data_rank`` holds it, on every rank of the mesh (one broadcast per mesh dim)."""
    from .. import broadcast
    coord = [int(c) for c in (mesh._mesh == src_data_rank).nonzero()]
    if not coord:
        raise ValueError(f"src_data_rank {src_data_rank} is not in the mesh {mesh}")
    out = tensor.detach().clone()
    for i in range(mesh.ndim):
        group = mesh.get_group(i)
        if mesh.size(i) > 1:
            from .. import get_global_rank
            broadcast(out, get_global_rank(group, coord[i]), group=group)
    return out


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """msnb implementation of ``torch.distributed.tensor.distribute_tensor``: a leaf DTensor of this rank's piece."""
    mesh = _mesh(device_mesh)
    placements = _normalize(placements, mesh, tensor.dim())
    if any(isinstance(p, Partial) for p in placements):
        raise NotImplementedError(f"distribute_tensor with a Partial placement is not supported by msnb yet "
                                  f"({_SUPPORT})")
    data = tensor.detach() if src_data_rank is None else _broadcast_from(tensor, mesh, src_data_rank)
    local = data
    for i, p in enumerate(placements):
        if isinstance(p, Shard):
            local = C.local_chunk(local, p.dim, mesh.get_group(i))
    local = local.clone().requires_grad_(tensor.requires_grad)
    return DTensor(local, mesh, placements, tensor.shape)


def _factory(make):
    def factory(*size, dtype=None, requires_grad=False, device_mesh=None, placements=None, **kwargs):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        t = make(size, dtype)
        t.requires_grad_(requires_grad)
        return distribute_tensor(t, device_mesh, placements, src_data_rank=None)
    return factory


ones = _factory(lambda s, d: _torch().ones(s, dtype=d))
zeros = _factory(lambda s, d: _torch().zeros(s, dtype=d))
empty = _factory(lambda s, d: _torch().zeros(s, dtype=d))


def full(size, fill_value, *, dtype=None, requires_grad=False, device_mesh=None, placements=None, **kwargs):
    t = _torch().full(tuple(size), fill_value, dtype=dtype)
    t.requires_grad_(requires_grad)
    return distribute_tensor(t, device_mesh, placements, src_data_rank=None)


for _f, _n in ((ones, "ones"), (zeros, "zeros"), (empty, "empty")):
    _f.__name__ = _f.__qualname__ = _n
    _f.__doc__ = f"msnb implementation of ``torch.distributed.tensor.{_n}`` (the same values on every rank, sharded)."
full.__doc__ = "msnb implementation of ``torch.distributed.tensor.full``."
