"""Differentiable collectives within one process group, for DTensor, tensor parallel and FSDP.

The bytes move through ``torch.distributed``'s collectives (MindSpore's
AllGather / AllReduce); each op is an ``autograd.Function`` whose backward is
the collective PyTorch's DTensor runs for that redistribution.
"""

from __future__ import annotations

import numpy as np

__all__ = ["chunk_sizes", "local_chunk", "all_gather_dim", "all_reduce_forward", "all_reduce_backward",
           "group_rank", "group_size"]


def _dist():
    from ... import distributed
    return distributed


def _torch():
    import msnb.adapter.torch as torch
    return torch


def group_size(group) -> int:
    return _dist().get_world_size(group)


def group_rank(group) -> int:
    return _dist().get_rank(group)


def chunk_sizes(n: int, parts: int) -> list[int]:
    """The sizes ``torch.chunk(parts)`` gives along a dimension of ``n``, padded with empty chunks."""
    size = -(-n // parts) if n else 0
    return [max(0, min(size, n - i * size)) for i in range(parts)]


def local_chunk(t, dim: int, group):
    """This rank's ``torch.chunk`` piece of ``t`` along ``dim`` (differentiable: a slice)."""
    sizes = chunk_sizes(t.shape[dim], group_size(group))
    r = group_rank(group)
    start = sum(sizes[:r])
    return t.narrow(dim, start, sizes[r])


def _gather(a: np.ndarray, group) -> np.ndarray:
    dist = _dist()
    return dist._gather_arrays(a, dist._group(group))


def _sum(a: np.ndarray, group) -> np.ndarray:
    dist = _dist()
    return dist._reduce_arrays(a, dist.ReduceOp.SUM, dist._group(group))


def _np(t) -> np.ndarray:
    return np.ascontiguousarray(t.detach().numpy())


def _gather_cat(a: np.ndarray, dim: int, sizes: list[int], group) -> np.ndarray:
    width = max(sizes) if sizes else 0
    pad = [(0, 0)] * a.ndim
    pad[dim] = (0, width - a.shape[dim])
    got = _gather(np.pad(a, pad), group)
    parts = [np.take(got[i], np.arange(s), axis=dim) for i, s in enumerate(sizes)]
    return np.concatenate(parts, axis=dim)


def _function():
    from ...autograd import Function
    return Function


_CACHE: dict = {}


def _fns():
    if _CACHE:
        return _CACHE
    Function = _function()
    torch = _torch()

    class AllGatherDim(Function):
        """Concatenate every rank's piece along ``dim``; backward: this rank's slice of the
        gradient (``reduce=None``, the gradient is the same on every rank) or of its sum over
        ranks divided by ``divide`` (FSDP's reduce-scatter); a callable ``reduce`` first sees
        the whole local gradient and may hold it back (no-sync accumulation)."""

        @staticmethod
        def forward(ctx, x, dim, sizes, group, reduce, divide):
            ctx.dim, ctx.sizes, ctx.group, ctx.reduce, ctx.divide = dim, sizes, group, reduce, divide
            out = _gather_cat(_np(x), dim, sizes, group)
            return torch.from_numpy(out)

        @staticmethod
        def backward(ctx, grad):
            g = _np(grad)
            if callable(ctx.reduce):  # FSDP's hold: keeps the gradient unreduced (None) or adds what it kept
                g = ctx.reduce(g)
                if g is None:
                    return None, None, None, None, None, None
            if ctx.reduce:
                g = _sum(g, ctx.group)
                if ctx.divide != 1:
                    g = (g / ctx.divide).astype(g.dtype)
            r = group_rank(ctx.group)
            start = sum(ctx.sizes[:r])
            piece = np.take(g, np.arange(start, start + ctx.sizes[r]), axis=ctx.dim)
            return torch.from_numpy(np.ascontiguousarray(piece)), None, None, None, None, None

    class AllReduceForward(Function):
        """Sum over ranks; backward passes the (replicated) gradient through."""

        @staticmethod
        def forward(ctx, x, group):
            return torch.from_numpy(_sum(_np(x), group))

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    class AllReduceBackward(Function):
        """Identity; backward sums the gradient over ranks (a replicated input used by sharded math)."""

        @staticmethod
        def forward(ctx, x, group):
            ctx.group = group
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return torch.from_numpy(_sum(_np(grad), ctx.group)), None

    _CACHE.update(gather=AllGatherDim, fwd=AllReduceForward, bwd=AllReduceBackward)
    return _CACHE


def all_gather_dim(x, dim: int, sizes, group, reduce: bool = False, divide: int = 1):
    """Every rank's ``x`` concatenated along ``dim`` (``sizes``: each rank's length there)."""
    if group_size(group) == 1 and not reduce:
        return x
    return _fns()["gather"].apply(x, dim % max(x.dim(), 1), list(sizes), group, reduce, divide)


def all_reduce_forward(x, group):
    return x if group_size(group) == 1 else _fns()["fwd"].apply(x, group)


def all_reduce_backward(x, group):
    return x if group_size(group) == 1 else _fns()["bwd"].apply(x, group)
