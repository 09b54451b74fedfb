"""Shape and view ops.  Ops PyTorch documents as views return views here
too: in-place writes through them reach their base (see ``_core``)."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _core, _dtype as D
from .._core import K, cast, make_view, needs_grad, record, wrap, wrap_fresh, TensorPy
from ..autograd.graph import name_node
from .creation import size_args, sizes_or_keyword
from .reduction import dims_of
from . import pointwise as P

__all__ = ["view", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "permute", "transpose",
           "t", "movedim", "expand", "expand_as", "broadcast_to", "repeat", "tile", "cat", "concat",
           "concatenate", "stack", "hstack", "vstack", "split", "chunk", "unbind", "narrow", "select",
           "flip", "roll", "detach", "alias_data", "contiguous", "swapaxes", "swapdims",
           "broadcast_tensors", "broadcast_shapes", "meshgrid", "tril", "triu", "diag", "clone",
           "repeat_interleave", "view_as", "view_dtype", "reshape_as", "squeeze_impl", "atleast_1d", "atleast_2d",
           "adjoint"]


def _infer(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if neg:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _reshape_impl(x, shape):
    shape = _infer(shape, x.numel())
    src = tuple(x.shape)
    res = wrap_fresh(K.reshape(x, shape), x)
    if needs_grad(x):
        record("ViewBackward0", res, (x,), lambda g: (_reshape_impl(g, src),))
    return res


def _as_view(x, res, fn, inv, noncontig=False):
    make_view(x, res, fn, inv)
    if noncontig or x.__dict__.get("_noncontig"):
        res._noncontig = noncontig
    return res


def view(input, *shape, dtype=None):
    """msnb implementation of ``Tensor.view`` (a shape, or a dtype: :func:`view_dtype`)."""
    if dtype is not None or len(shape) == 1 and isinstance(shape[0], D.dtype):
        if dtype is not None and shape:
            raise TypeError("view() received an invalid combination of arguments")
        return view_dtype(input, dtype if dtype is not None else shape[0])
    if input.__dict__.get("_noncontig"):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    shape = size_args(shape)
    res = _reshape_impl(input, shape)
    return _as_view(input, res, lambda t: _reshape_impl(t, shape), lambda t, new: _reshape_impl(new, t.shape))


def _bits(t):
    """The tensor's elements as a C-contiguous numpy array of the same item size (its bit patterns)."""
    a = np.ascontiguousarray(t.detach().numpy())
    if t.dtype is D.bfloat16:  # numpy has no bfloat16: msnb hands it over as float32
        return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return a.view(np.uint8) if a.dtype == np.bool_ else a


def _from_bits(a, dtype):
    """A tensor of ``dtype`` whose bit patterns are those of numpy array ``a``."""
    from .creation import tensor
    if dtype is D.bfloat16:
        f = (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        return tensor(f, dtype=D.bfloat16)
    want = np.uint8 if dtype is D.bool else dtype.numpy
    out = a.view(want)
    return tensor(out.astype(np.bool_) if dtype is D.bool else out, dtype=dtype)


def _bitcast(t, dtype):
    a = _bits(t)
    if t.ndim == 0:  # (np.ascontiguousarray makes a 0-d array 1-d)
        return _from_bits(a.reshape(1), dtype).reshape(())
    return _from_bits(a, dtype)


def view_dtype(input, dtype):
    """``Tensor.view(dtype)``: the same bits read as ``dtype``, as PyTorch: the shape is kept when
    the element sizes match, else the last dimension grows or shrinks by their ratio (PyTorch's
    errors when it cannot).  A view: writes through either tensor reach the other.  Not
    differentiable, as in PyTorch.  msnb computes it by reinterpreting the bits on the host."""
    src = input.dtype
    old, new = src.itemsize, dtype.itemsize
    if old != new:
        what = f"to view {D._name_of(src)} as {D._name_of(dtype)} (different element sizes)"
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if input.__dict__.get("_noncontig"):
            from .._missing import NotSupportedError, not_supported_message
            raise NotSupportedError(not_supported_message("torch.Tensor.view(dtype) of a non-contiguous tensor "
                                                          "with another element size"))
        if new > old and input.shape[-1] % (new // old):
            raise RuntimeError(f"self.size(-1) must be divisible by {new // old} {what}, but got "
                               f"{input.shape[-1]}")
    res = _bitcast(input, dtype)
    make_view(input, res, lambda t: _bitcast(t, dtype), lambda t, new_: _bitcast(new_, t.dtype), detached=True)
    if input.__dict__.get("_noncontig"):
        res._noncontig = True
    return res


def reshape(input, *shape, **kw):
    """msnb implementation of ``torch.reshape``: a view of a contiguous tensor, else a copy."""
    shape = size_args(sizes_or_keyword(shape, kw, "shape", "reshape") if kw else shape)
    if input.__dict__.get("_noncontig"):
        return _reshape_impl(clone(input), shape)
    res = _reshape_impl(input, shape)
    return _as_view(input, res, lambda t: _reshape_impl(t, shape), lambda t, new: _reshape_impl(new, t.shape))


def view_as(input, other):
    return view(input, tuple(other.shape))


def reshape_as(input, other):
    return reshape(input, tuple(other.shape))


def flatten(input, start_dim=0, end_dim=-1):
    """msnb implementation of ``torch.flatten``."""
    nd = input.ndim
    if nd == 0:
        return reshape(input, (1,))
    s, e = _core.wrap_dim(start_dim, nd), _core.wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shp = list(input.shape)
    n = 1
    for v in shp[s:e + 1]:
        n *= v
    return reshape(input, tuple(shp[:s] + [n] + shp[e + 1:]))


def unflatten(input, dim, sizes):
    d = dims_of(input, dim)[0]
    shp = list(input.shape)
    sizes = list(sizes)
    if -1 in sizes:
        sizes = list(_infer(sizes, shp[d]))
    return view(input, tuple(shp[:d] + sizes + shp[d + 1:]))


def squeeze_impl(x, dims):
    return _reshape_impl(x, tuple(s for i, s in enumerate(x.shape) if i not in dims))


def squeeze(input, dim=None):
    """msnb implementation of ``torch.squeeze`` (int or tuple ``dim``)."""
    if dim is None:
        dims = tuple(i for i, s in enumerate(input.shape) if s == 1)
    else:
        dims = tuple(d for d in dims_of(input, dim) if input.ndim and input.shape[d] == 1)
    shape = tuple(s for i, s in enumerate(input.shape) if i not in dims)
    res = _reshape_impl(input, shape)
    name_node(res, "SqueezeBackward0" if dim is None else
              "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1")
    return _as_view(input, res, lambda t: _reshape_impl(t, shape), lambda t, new: _reshape_impl(new, t.shape))


def unsqueeze(input, dim):
    """msnb implementation of ``torch.unsqueeze``."""
    nd = input.ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd-1}], but got {dim})")
    d = dim % nd
    shape = list(input.shape)
    shape.insert(d, 1)
    shape = tuple(shape)
    res = name_node(_reshape_impl(input, shape), "UnsqueezeBackward0")
    return _as_view(input, res, lambda t: _reshape_impl(t, shape), lambda t, new: _reshape_impl(new, t.shape))


def _permute_impl(x, perm):
    res = wrap_fresh(K.transpose(x, perm), x)
    if needs_grad(x):
        inv = tuple(np.argsort(perm).tolist())
        record("PermuteBackward0", res, (x,), lambda g: (_permute_impl(g, inv),))
    return res


def permute(input, *dims, **kw):
    """msnb implementation of ``torch.permute``."""
    perm = size_args(sizes_or_keyword(dims, kw, "dims", "permute") if kw else dims)
    nd = input.ndim
    if len(perm) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {nd} "
                           f"is not equal to len(dims) = {len(perm)}")
    perm = tuple(_core.wrap_dim(p, nd) for p in perm)
    inv = tuple(np.argsort(perm).tolist())
    res = _permute_impl(input, perm)
    ident = perm == tuple(range(nd))
    return _as_view(input, res, lambda t: _permute_impl(t, perm), lambda t, new: _permute_impl(new, inv),
                    noncontig=not ident)


def transpose(input, dim0, dim1):
    """msnb implementation of ``torch.transpose``."""
    nd = input.ndim
    if nd == 0:
        return view(input, ())
    perm = list(range(nd))
    d0, d1 = dims_of(input, dim0)[0], dims_of(input, dim1)[0]
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return name_node(permute(input, *perm), "TransposeBackward0", input)


swapaxes = swapdims = transpose


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return name_node(transpose(input, 0, 1) if input.ndim == 2 else view(input, tuple(input.shape)), "TBackward0", input)


def movedim(input, source, destination):
    """msnb implementation of ``torch.movedim``, with PyTorch's checks of the two dim lists."""
    nd = input.ndim
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) should contain "
                           f"the same number of dims as destination ({destination} dims)")
    src = [_core.wrap_dim(s, nd) for s in source]
    dst = [_core.wrap_dim(d, nd) for d in destination]
    for what, given, wrapped in (("source", source, src), ("destination", destination, dst)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({given})")
    order = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, *order)


def contiguous(input, memory_format=None):
    if memory_format is not None:
        from .._memory_format import check_memory_format
        check_memory_format(memory_format, input.dim())
    if input.__dict__.get("_noncontig"):
        return clone(input)
    return input


def expand(input, *sizes):
    """msnb implementation of ``Tensor.expand`` (partial: returns a copy, not a view)."""
    sizes = size_args(sizes)
    nd = len(sizes)
    if nd < input.ndim:
        raise RuntimeError(f"expand: the number of sizes provided ({nd}) must be greater or equal to "
                           f"the number of dimensions in the tensor ({input.ndim})")
    pad = (1,) * (nd - input.ndim) + tuple(input.shape)
    target = tuple(p if s == -1 else s for s, p in zip(sizes, pad))
    for s, p in zip(target, pad):
        if p != 1 and p != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({p}) "
                               f"at non-singleton dimension. Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(input.shape)}")
    if target == tuple(input.shape):
        return view(input, target)
    src = tuple(input.shape)
    res = wrap_fresh(K.broadcast_to(input, target), input)
    if needs_grad(input):
        record("ExpandBackward0", res, (input,), lambda g: (P.sum_to(g, src),))
    return res


def expand_as(input, other):
    return expand(input, tuple(other.shape))


def broadcast_to(input, size):
    return expand(input, tuple(size))


def broadcast_shapes(*shapes):
    """msnb implementation of ``torch.broadcast_shapes`` (a ``torch.Size``; an int is a 1-D shape)."""
    from .._tensor import Size
    try:
        return Size(np.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes]))
    except ValueError:
        raise RuntimeError(f"shape mismatch: objects cannot be broadcast to a single shape") from None


def broadcast_tensors(*tensors):
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(expand(t, shape) for t in tensors)


def repeat(input, *sizes):
    """msnb implementation of ``Tensor.repeat``."""
    sizes = size_args(sizes)
    x = input
    if len(sizes) > x.ndim:
        x = reshape(x, (1,) * (len(sizes) - x.ndim) + tuple(x.shape))
    src = tuple(x.shape)
    res = wrap_fresh(K.tile(x, sizes), x)
    if needs_grad(x):
        def bw(g):
            shp = []
            for r, s in zip(sizes, src):
                shp += [r, s]
            return (g.reshape(shp).sum(dim=tuple(range(0, 2 * len(src), 2))),)
        record("RepeatBackward0", res, (x,), bw)
    return res


def tile(input, *dims, **kw):
    """msnb implementation of ``torch.tile`` / ``Tensor.tile`` (a tuple or varargs)."""
    dims = size_args(sizes_or_keyword(dims, kw, "dims", "tile") if kw else dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """msnb implementation of ``torch.repeat_interleave`` (``output_size`` is checked, as in PyTorch)."""
    if repeats is None:  # repeat_interleave(repeats): indices repeated by their counts
        from .creation import arange
        counts = input
        return repeat_interleave(arange(counts.numel()), counts.reshape(-1), 0, output_size=output_size)
    if isinstance(repeats, TensorPy):
        repeats = repeats.tolist()
    from .indexing import index_select
    from .creation import tensor
    if dim is None:
        input, dim = reshape(input, (-1,)), 0
    n = input.shape[dim]
    reps = [repeats] * n if isinstance(repeats, int) else list(repeats)
    if len(reps) != n:
        raise RuntimeError("repeats must have the same size as input along dim")
    if builtins.any(r < 0 for r in reps):
        raise RuntimeError("repeats can not be negative")
    idx = tensor(np.repeat(np.arange(n), reps).astype(np.int64))
    if output_size is not None and output_size != idx.numel():
        raise RuntimeError(f"allocated size does not match required size ({output_size} vs {idx.numel()})")
    return index_select(input, dim, idx)


def cat(tensors, dim=0, *, out=None):
    """msnb implementation of ``torch.cat`` (promotes dtypes; skips legacy empty 1-D tensors)."""
    from .._core import write_out
    tensors = _tensor_list(tensors)
    ts = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or list(tensors)[:1]
    _check_cat(ts, dim)
    rt = ts[0].dtype
    for t_ in ts[1:]:
        rt = D.promote_types(rt, t_.dtype)
    ts = [cast(t_, rt) for t_ in ts]
    d = dims_of(ts[0], dim)[0]
    res = wrap(K.concat(ts, d)) if len(ts) > 1 else clone(ts[0])
    if len(ts) > 1 and needs_grad(*ts):
        sizes = [t_.shape[d] for t_ in ts]

        def bw(g):
            return tuple(split(g, sizes, d))
        record("CatBackward0", res, tuple(ts), bw)
    return write_out(out, res)


concat = concatenate = cat


def _tensor_list(tensors):
    """``cat``'s argument checked as PyTorch's parser and kernel do: a non-empty sequence of
    Tensors (``ValueError`` when empty, ``TypeError`` for a Tensor or a non-Tensor element),
    none of them 0-d."""
    if isinstance(tensors, TensorPy):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for k, t_ in enumerate(tensors):
        if not isinstance(t_, TensorPy):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t_).__name__}")
    for k, t_ in enumerate(tensors):
        if t_.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    return tensors


def _check_cat(ts, dim):
    """PyTorch's errors for ``cat`` inputs that do not fit together (MindSpore
    would report them late, as ``ValueError``)."""
    first = tuple(ts[0].shape)
    d = dims_of(ts[0], dim)[0]
    for k, t_ in enumerate(ts[1:], 1):
        shp = tuple(t_.shape)
        if len(shp) != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and {len(shp)}")
        for i, (a, b) in enumerate(zip(first, shp)):
            if i != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} but "
                                   f"got size {b} for tensor number {k} in the list.")


def stack(tensors, dim=0, *, out=None):
    """msnb implementation of ``torch.stack``."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for k, t_ in enumerate(tensors[1:], 1):
        if tuple(t_.shape) != tuple(tensors[0].shape):
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t_.shape)} at entry {k}")
    nd = tensors[0].ndim + 1
    d = _core.wrap_dim(dim, nd)
    return name_node(cat([unsqueeze(t_, d) for t_ in tensors], d, out=out), "StackBackward0", *tensors)


def hstack(tensors):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    tensors = [atleast_1d(t_) for t_ in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat([atleast_2d(t_) for t_ in tensors], 0)


def atleast_1d(x):
    return reshape(x, (1,)) if x.ndim == 0 else x


def atleast_2d(x):
    return reshape(x, (1, -1)) if x.ndim < 2 else x


def narrow(input, dim, start, length):
    """msnb implementation of ``torch.narrow`` (a view)."""
    from .indexing import getitem
    d, start, length = narrow_args(input, dim, start, length)
    idx = (slice(None),) * d + (slice(start, start + length),)
    return getitem(input, idx)


def narrow_args(input, dim, start, length):
    """``(dim, start, length)`` of a ``narrow`` checked and wrapped as PyTorch does: no 0-d
    input, ``start`` in ``[-size, size]`` (an int or a 0-d integral tensor), a non-negative
    ``length`` that stays inside the dimension."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = dims_of(input, dim)[0]
    if isinstance(start, TensorPy):
        if start.ndim != 0 or start.dtype.is_floating_point or start.dtype.is_complex or start.dtype is D.bool:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return d, start, length


def select(input, dim, index):
    from .indexing import getitem
    d = dims_of(input, dim)[0]
    return getitem(input, (slice(None),) * d + (index,))


def split(tensor, split_size_or_sections, dim=0):
    """msnb implementation of ``torch.split``: a tuple of views."""
    d = dims_of(tensor, dim)[0]
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        sizes = [s] * (n // s) + ([n % s] if n % s else [])
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(narrow(tensor, d, start, s))
        start += s
    return name_node(tuple(out), "SplitBackward0" if isinstance(split_size_or_sections, int)
                     else "SplitWithSizesBackward0", tensor)


def chunk(input, chunks, dim=0):
    d = dims_of(input, dim)[0]
    n = input.shape[d]
    size = -(-n // chunks)
    return split(input, size, d)


def _no_dims(input, dim):
    """PyTorch's error for a dim (accepted by the wrap) of a 0-d tensor that the op must index."""
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def unbind(input, dim=0):
    d = dims_of(input, dim)[0]
    _no_dims(input, dim)
    return name_node(tuple(select(input, d, i) for i in range(input.shape[d])), "UnbindBackward0", input)


def flip(input, dims):
    dims = dims_of(input, dims)
    res = wrap(K.flip(input, dims))
    if needs_grad(input):
        record("FlipBackward0", res, (input,), lambda g: (flip(g, dims),))
    return res


def roll(input, shifts, dims=None):
    if dims is None:
        if isinstance(shifts, (tuple, list)) and len(shifts) != 1:
            raise RuntimeError("`shifts` required" if not shifts else
                               f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        if input.numel() == 0:
            return clone(input)
        return view(roll(reshape(input, (-1,)), shifts, 0), tuple(input.shape))
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    x = input
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    for s, d in zip(shifts, dims):
        d = dims_of(x, d)[0]
        _no_dims(x, d)
        n = x.shape[d]
        if n == 0:
            continue
        s %= n
        if s:
            a, b = narrow(x, d, n - s, s), narrow(x, d, 0, n - s)
            x = cat([a, b], d)
    return name_node(clone(x) if x is input else x, "RollBackward0", input)


def clone(input, *, memory_format=None):
    """msnb implementation of ``torch.clone``: a new tensor with its own data."""
    res = wrap(K.identity(input))
    if needs_grad(input):
        record("CloneBackward0", res, (input,), lambda g: (g,))
    return res


def detach(input):
    """msnb implementation of ``Tensor.detach``: shares data with ``input`` (a
    write through either is seen by both) but is cut from the graph."""
    res = wrap(K.identity(input))
    make_view(input, res, lambda t: wrap(K.identity(t)), lambda t, new: new, detached=True)
    return res


alias_data = detach


def tril(input, diagonal=0):
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    res = wrap(K.tril(input, diagonal))
    if needs_grad(input):
        record("TrilBackward0", res, (input,), lambda g: (tril(g, diagonal),))
    return res


def triu(input, diagonal=0):
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    res = wrap(K.triu(input, diagonal))
    if needs_grad(input):
        record("TriuBackward0", res, (input,), lambda g: (triu(g, diagonal),))
    return res


def diag(input, diagonal=0):
    """msnb implementation of ``torch.diag``: a 1-D input becomes a (shifted)
    diagonal matrix; a 2-D input gives its ``diagonal``-th diagonal."""
    from .creation import tensor
    from .indexing import gather, index_put
    if input.ndim == 1:
        n = input.shape[0]
        size = n + builtins.abs(diagonal)
        r = np.arange(n) + builtins.max(0, -diagonal)
        c = np.arange(n) + builtins.max(0, diagonal)
        from .creation import zeros
        base = zeros(size, size, dtype=input.dtype)
        return index_put(base, (tensor(r.astype(np.int64)), tensor(c.astype(np.int64))), input)
    if input.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")
    rows, cols = input.shape
    r0, c0 = builtins.max(0, -diagonal), builtins.max(0, diagonal)
    n = builtins.max(0, builtins.min(rows - r0, cols - c0))
    flat = input.reshape(-1)
    idx = tensor(((np.arange(n) + r0) * cols + np.arange(n) + c0).astype(np.int64))
    return gather(flat, 0, idx)


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = [t_.numel() for t_ in tensors]
    out = []
    for i, t_ in enumerate(tensors):
        s = [1] * len(tensors)
        s[i] = -1
        out.append(expand(reshape(t_, s), shape))
    if indexing == "xy" and len(tensors) >= 2:
        out = [transpose(o, 0, 1) for o in out]
    return tuple(out)


def matrix_adjoint(input, what="tensor.adjoint()", batches=True):
    """The conjugate transpose of the last two dimensions (``Tensor.mH``, ``Tensor.H`` with
    ``batches=False``, ``torch.adjoint``), with PyTorch's messages for the ranks it refuses."""
    import warnings
    from .complex import conj
    if input.ndim == 0:
        name = what[len("tensor."):] if what.endswith("()") else "Tensor." + what[len("tensor."):]
        warnings.warn(f"{name} is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=3)
        return conj(input)
    if input.ndim == 1 or (not batches and input.ndim > 2):
        if batches:
            raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. "
                               f"Got {input.ndim}-D tensor.")
        extra = " For batches of matrices, consider using tensor.mH" if input.ndim > 2 else ""
        raise RuntimeError(f"{what} is only supported on matrices (2-D tensors). Got {input.ndim}-D tensor.{extra}")
    return conj(input.transpose(-2, -1))


def adjoint(input):
    """msnb implementation of ``torch.adjoint`` (``input.transpose(-2, -1).conj()``)."""
    return matrix_adjoint(input)
