"""``torch.func.vmap``: the function runs once per index of the mapped
dimension and the results are stacked along ``out_dims``.

That is the transform's meaning (each sample computed on its own, as a
batched kernel would), with PyTorch's checks of ``in_dims``/``out_dims`` and
its ``randomness`` policies: ``"error"`` refuses any draw, ``"same"`` rewinds
each generator so every sample draws the same numbers, ``"different"`` lets
each sample draw its own."""

from __future__ import annotations

import functools

from .._tensor import Tensor
from .._ops import random as _random
from . import _pytree as P

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def _name(func):
    return getattr(func, "__name__", repr(func))


class _Randomness:
    """Enforces one vmap's ``randomness`` policy on the draws made inside it."""

    def __init__(self, mode):
        self.mode = mode
        self.start = {}  # generator -> its state before the first sample's first draw
        self.seen = set()
        self.first = True

    def __call__(self, g):
        if self.prev is not None:
            self.prev(g)
        if self.mode == "error":
            raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                               "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                               "operation out of vmap")
        if self.mode == "same" and id(g) not in self.seen:
            self.seen.add(id(g))
            if self.first:
                self.start[id(g)] = (g, g.get_state())
            elif id(g) in self.start:
                g.set_state(self.start[id(g)][1])

    def __enter__(self):
        self.prev = _random.DRAW_HOOK[0]
        _random.DRAW_HOOK[0] = self
        return self

    def next_sample(self):
        self.first = False
        self.seen = set()

    def __exit__(self, *exc):
        _random.DRAW_HOOK[0] = self.prev


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """msnb implementation of ``torch.func.vmap`` / ``torch.vmap``."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _run(func, in_dims, out_dims, randomness, args, kwargs)

    return wrapped


def _in_dims(func, in_dims, args):
    name = _name(func)
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    if isinstance(in_dims, bool) or not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    leaves, spec = P.flatten(args)
    dims = P.broadcast_prefix(in_dims, args)
    if dims is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                         f"{P.flatten(in_dims)[1]} but inputs has structure {spec}.")
    sizes = []
    for leaf, d in zip(leaves, dims):
        if d is None:
            continue
        if isinstance(d, bool) or not isinstance(d, int):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either an integer dimension "
                             "or None.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type {type(leaf)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        n = leaf.dim()
        if not -n <= d < n:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a Tensor of dimensionality "
                             f"{n} so expected in_dim to satisfy -{n} <= in_dim < {n}.")
        sizes.append(leaf.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return leaves, spec, [None if d is None else d % leaf.dim() for leaf, d in zip(leaves, dims)], sizes[0]


def _sample(leaves, dims, i):
    from .._ops.creation import zeros
    out = []
    for t, d in zip(leaves, dims):
        if d is None:
            out.append(t)
        elif i is None:  # a zero-size batch: one stand-in sample gives the output's shape
            shape = tuple(t.shape[:d]) + tuple(t.shape[d + 1:])
            out.append(zeros(shape, dtype=t.dtype))
        else:
            out.append(t.select(d, i))
    return out


def _run(func, in_dims, out_dims, randomness, args, kwargs):
    from .._ops.shape import stack
    name = _name(func)
    leaves, spec, dims, size = _in_dims(func, in_dims, args)
    results = []
    from ._transforms import transform
    with _Randomness(randomness) as policy, transform("vmap"):
        for i in range(size) if size else (None,):
            results.append(func(*P.unflatten(_sample(leaves, dims, i), spec), **kwargs))
            policy.next_sample()
    out_leaves, out_spec = P.flatten(results[0])
    odims = P.broadcast_prefix(out_dims, results[0])
    if odims is None or (isinstance(out_dims, (tuple, list)) and out_spec.kind is None):
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {P.flatten(out_dims)[1]} but outputs has "
                         f"structure {out_spec}.")
    per_sample = [P.flatten(r) for r in results]
    for leaves_i, spec_i in per_sample:
        if spec_i != out_spec:
            raise ValueError(f"vmap({name}, ...): `{name}` returned outputs of different structures for different "
                             "samples")
    final = []
    for k, od in enumerate(odims):
        vals = [lv[k] for lv, _ in per_sample]
        if od is None:
            final.append(_unbatched(name, vals))
            continue
        if not isinstance(vals[0], Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(vals[0])}. Did "
                             "you mean to set out_dims= to None for output?")
        if size:
            final.append(stack(vals, dim=od))
        else:
            final.append(stack(vals, dim=od).narrow(od % (vals[0].dim() + 1), 0, 0))
    return P.unflatten(final, out_spec)


def _unbatched(name, vals):
    """An output with ``out_dims=None``: the same for every sample, returned once."""
    first = vals[0]
    if not isinstance(first, Tensor):
        return first
    for v in vals[1:]:
        if v is not first and not (isinstance(v, Tensor) and v.shape == first.shape and bool((v == first).all())):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
    return first
