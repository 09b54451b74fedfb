"""msnb implementation of ``torch.distributed.tensor.placement_types``: how a DTensor lies on a mesh dimension."""

from __future__ import annotations

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


class Placement:
    """Base of the placements (PyTorch's ``Placement``)."""

    def is_shard(self, dim=None) -> bool:
        return isinstance(self, Shard) and (dim is None or self.dim == dim)

    def is_replicate(self) -> bool:
        return isinstance(self, Replicate)

    def is_partial(self, reduce_op=None) -> bool:
        return isinstance(self, Partial) and (reduce_op is None or self.reduce_op == reduce_op)


class Shard(Placement):
    """``Shard(dim)``: each rank of the mesh dimension holds its ``torch.chunk`` piece along ``dim``."""

    def __init__(self, dim: int):
        self.dim = int(dim)

    def __eq__(self, other):
        return isinstance(other, Shard) and other.dim == self.dim

    def __hash__(self):
        return hash(("Shard", self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class Replicate(Placement):
    """``Replicate()``: every rank of the mesh dimension holds the whole tensor."""

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return hash("Replicate")

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """``Partial(reduce_op)``: each rank holds a partial value; the tensor is their ``sum`` (the only op msnb takes)."""

    def __init__(self, reduce_op: str = "sum"):
        if reduce_op not in ("sum", "avg"):
            raise NotImplementedError(f"Partial({reduce_op!r}) is not supported by msnb yet: sum and avg only "
                                      "(see the support list: python -m msnb.adapter.support --markdown)")
        self.reduce_op = reduce_op

    def __eq__(self, other):
        return isinstance(other, Partial) and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(("Partial", self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
