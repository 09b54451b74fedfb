"""msnb implementation of ``torch.nested``: ``nested_tensor`` /
``as_nested_tensor`` in the ``torch.strided`` and ``torch.jagged`` layouts,
``to_padded_tensor``, and the nested tensor (:class:`NestedTensor`).

A nested tensor holds its components, ordinary msnb tensors of different
lengths, and computes component by component: elementwise ops, ``matmul``,
``linear``, ``softmax`` / ``log_softmax`` (not over the batch dimension),
``dropout``, ``layer_norm``, ``scaled_dot_product_attention`` and the shape
methods (``reshape``, ``transpose``, ``unflatten``, ``flatten``) run on each
component with msnb's kernels, so gradients reach each component.  While a
nested tensor is alive, msnb's torch functions see it (the same wrappers
``torch.fx`` uses, ``torch/fx/_hook.py``); a function with no nested version
here raises msnb's unsupported error by name.  See docs/export-nested.md."""

from __future__ import annotations

import itertools

from .._missing import module_getattr, NotSupportedError, not_supported_message
from .._sparse_coo import jagged, strided
from ..fx import _hook

__all__ = ["nested_tensor", "as_nested_tensor", "to_padded_tensor"]

_counter = itertools.count(1)
#: torch functions that act on each component alone, with the nested tensor's dimensions as they are
_ELEMENTWISE = frozenset("""abs neg exp log log1p expm1 sqrt rsqrt sin cos tan tanh sigmoid relu gelu silu
    elu leaky_relu hardtanh softplus mish erf sign floor ceil round clamp clamp_min clamp_max square
    reciprocal pow add sub mul div true_divide where dropout relu6 hardswish hardsigmoid logsigmoid
    layer_norm linear matmul bmm scaled_dot_product_attention""".split())
_BINARY = frozenset("add sub mul div true_divide pow where matmul bmm".split())
#: functions whose ``dim`` argument counts the batch dimension (position of dim in the signature)
_DIM_ARG = {"softmax": 1, "log_softmax": 1}


class NestedInt:
    """The ragged size of a jagged nested tensor, printed ``j1``, ``j2`` ... as PyTorch prints it."""

    def __init__(self):
        self.id = next(_counter)

    def __repr__(self):
        return f"j{self.id}"


def _no_strided_kernel(op):
    """What PyTorch raises for an op its strided nested tensors have no kernel for (measured: these)."""
    return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the 'NestedTensorCPU' backend.")


def _size_error(d):
    return RuntimeError(f"Given dimension {d} is irregular and does not have a size.")


class NestedTensor:
    """msnb implementation of a nested tensor: a batch of tensors whose sizes may differ."""

    is_nested = True

    def __init__(self, components, layout=strided, ragged=None, ragged_idx=1):
        self._components = list(components)
        self._layout = layout
        self._ragged = ragged if ragged is not None or layout is not jagged else NestedInt()
        self._ragged_idx = ragged_idx
        _hook.acquire()
        self._hooked = True

    def __del__(self):
        if self.__dict__.get("_hooked"):
            try:
                _hook.release()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    def _like(self, components, ragged_idx=None):
        return NestedTensor(components, self._layout, self._ragged,
                            self._ragged_idx if ragged_idx is None else ragged_idx)

    # --- what it is --------------------------------------------------------------------
    @property
    def layout(self):
        return self._layout

    @property
    def dtype(self):
        return self._components[0].dtype

    @property
    def device(self):
        return self._components[0].device

    @property
    def requires_grad(self):
        return any(c.requires_grad for c in self._components)

    def requires_grad_(self, flag=True):
        for c in self._components:
            c.requires_grad_(flag)
        return self

    @property
    def grad(self):
        grads = [c.grad for c in self._components]
        return None if any(g is None for g in grads) else self._like(grads)

    @property
    def is_leaf(self):
        return all(c.is_leaf for c in self._components)

    def detach(self):
        return self._like([c.detach() for c in self._components])

    def dim(self):
        return self._components[0].dim() + 1

    ndim = property(dim)

    def _norm(self, d):
        n = self.dim()
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        return d + n if d < 0 else d

    def size(self, dim=None):
        if dim is None:
            if self._layout is not jagged:
                raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")
            from .._tensor import Size
            sizes = [len(self._components)]
            for d in range(1, self.dim()):
                sizes.append(self._ragged if d == self._ragged_idx else self._components[0].shape[d - 1])
            return Size(sizes)
        d = self._norm(dim)
        if d == 0:
            return len(self._components)
        if self._layout is jagged and d == self._ragged_idx:
            return self._ragged
        sizes = {c.shape[d - 1] for c in self._components}
        if len(sizes) != 1:
            raise _size_error(d)
        return sizes.pop()

    @property
    def shape(self):
        return self.size()

    def is_contiguous(self, memory_format=None):
        return True

    def values(self):
        """Jagged: the components joined along the ragged dimension (a copy; gradients flow back)."""
        from .. import cat
        if self._layout is jagged:
            if self._ragged_idx != 1:
                raise NotSupportedError(not_supported_message("torch.Tensor.values of a transposed jagged nested "
                                                              "tensor"))
            return cat(self._components, 0)
        return cat([c.reshape(-1) for c in self._components])

    def offsets(self):
        from .. import int64, tensor
        if self._layout is not jagged:
            raise RuntimeError("offsets() is only defined for nested tensors with the jagged layout")
        out, n = [0], 0
        for c in self._components:
            n += c.shape[self._ragged_idx - 1]
            out.append(n)
        return tensor(out, dtype=int64)

    def unbind(self, dim=0):
        if self._norm(dim) != 0:
            raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
        return tuple(self._components)

    def to_padded_tensor(self, padding, output_size=None):
        return to_padded_tensor(self, padding, output_size)

    def __len__(self):
        return len(self._components)

    def __getitem__(self, item):
        if isinstance(item, int):
            return self._components[item]
        if isinstance(item, tuple) and item and isinstance(item[0], int):
            return self._components[item[0]][item[1:]]
        raise NotSupportedError(not_supported_message("indexing a nested tensor other than by an int first index"))

    # --- per component ------------------------------------------------------------------
    def _map(self, fn, ragged_idx=None):
        return self._like([fn(c) for c in self._components], ragged_idx)

    def _inner(self, d):
        d = self._norm(d)
        if d == 0:
            raise RuntimeError("Nested tensor operations over the batch dimension 0 are not supported")
        return d - 1

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        if shape[0] not in (-1, len(self._components)):
            raise RuntimeError("reshape: For now nested reshape cannot change or infer the implicit batch dimension")
        return self._map(lambda c: c.reshape(tuple(shape[1:])))

    view = reshape

    def transpose(self, dim0, dim1):
        a, b = self._inner(dim0), self._inner(dim1)
        idx = self._ragged_idx
        idx = b + 1 if idx == a + 1 else a + 1 if idx == b + 1 else idx
        return self._map(lambda c: c.transpose(a, b), idx)

    def unflatten(self, dim, sizes):
        d = self._inner(dim)
        idx = self._ragged_idx + (len(sizes) - 1 if d + 1 < self._ragged_idx else 0)
        return self._map(lambda c: c.unflatten(d, sizes), idx)

    def flatten(self, start_dim=0, end_dim=-1):
        s, e = self._inner(start_dim), self._inner(end_dim)
        if self._layout is jagged and s + 1 <= self._ragged_idx <= e + 1 and s != e:
            raise NotSupportedError(not_supported_message("flattening the ragged dimension of a jagged nested "
                                                          "tensor"))
        idx = self._ragged_idx - (e - s if e + 1 < self._ragged_idx else 0)
        return self._map(lambda c: c.flatten(s, e), idx)

    def softmax(self, dim, dtype=None):
        return _per_component_dim(self, "softmax", dim, dtype)

    def log_softmax(self, dim, dtype=None):
        return _per_component_dim(self, "log_softmax", dim, dtype)

    def _binary(self, other, name, reflected=False):
        from .. import Tensor
        import msnb.adapter.torch as torch
        fn = getattr(torch, name)
        if reflected and name == "sub" and self._layout is not jagged and not isinstance(other, NestedTensor):
            raise _no_strided_kernel("rsub.Scalar")
        if isinstance(other, NestedTensor):
            if len(other) != len(self):
                raise RuntimeError(f"{name}: expected nested tensors with the same number of components")
            pairs = zip(self._components, other._components)
        elif isinstance(other, Tensor):
            if self._layout is not jagged and other.dim() > 0:
                raise RuntimeError("Expected both self and other to be nested, but got a nested self and "
                                   "non-nested other")
            if other.dim() >= self.dim():
                raise NotSupportedError(not_supported_message(f"torch.{name} of a jagged nested tensor and a dense "
                                                              "tensor with a batch dimension"))
            pairs = ((c, other) for c in self._components)
        elif isinstance(other, (int, float, bool)):
            pairs = ((c, other) for c in self._components)
        else:
            return NotImplemented
        return self._like([fn(b, a) if reflected else fn(a, b) for a, b in pairs])

    def __add__(self, o):
        return self._binary(o, "add")

    def __radd__(self, o):
        return self._binary(o, "add", True)

    def __sub__(self, o):
        return self._binary(o, "sub")

    def __rsub__(self, o):
        return self._binary(o, "sub", True)

    def __mul__(self, o):
        return self._binary(o, "mul")

    def __rmul__(self, o):
        return self._binary(o, "mul", True)

    def __truediv__(self, o):
        return self._binary(o, "div")

    def __rtruediv__(self, o):
        return self._binary(o, "div", True)

    def __matmul__(self, o):
        return _function(None, "torch.matmul", (self, o), {})

    def __neg__(self):
        return self._map(lambda c: -c)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _ELEMENTWISE:
            import msnb.adapter.torch as torch
            fn = getattr(torch, name, None)
            if fn is not None:
                return lambda *a, **k: _function(fn, f"torch.{name}", (self, *a), k)
        raise NotSupportedError(not_supported_message(f"torch.Tensor.{name} on a nested tensor"))

    def __repr__(self):
        if self._layout is jagged:
            size = ", ".join(repr(s) for s in self.size())
            return f"NestedTensor(size=({size}), offsets={self.offsets()!r}, contiguous=True)"
        parts = ",\n".join("  " + repr(c).replace("\n", "\n  ") for c in self._components)
        return f"nested_tensor([\n{parts}\n])"

    __str__ = __repr__


def _per_component_dim(nt, name, dim, dtype=None):
    import msnb.adapter.torch as torch
    d = nt._norm(dim)
    if d == 0:
        raise RuntimeError(f"Cannot apply {name} across nested dimension 0")
    if name == "log_softmax" and nt._layout is not jagged:
        raise _no_strided_kernel("_log_softmax")
    fn = getattr(torch.nn.functional, name)
    return nt._map(lambda c: fn(c, d - 1, dtype=dtype))


def _function(fn, qualname: str, args, kwargs):
    """A torch function called with a nested tensor among its arguments (the fx hook's override)."""
    import msnb.adapter.torch as torch
    name = qualname.rsplit(".", 1)[1]
    nested = [a for a in args if isinstance(a, NestedTensor)] + \
        [v for v in kwargs.values() if isinstance(v, NestedTensor)]
    first = nested[0]
    if name in _DIM_ARG:
        dim = kwargs.get("dim", args[_DIM_ARG[name]] if len(args) > _DIM_ARG[name] else None)
        if dim is None:
            raise RuntimeError(f"{name} on a nested tensor needs an explicit dim")
        return _per_component_dim(first, name, dim, kwargs.get("dtype"))
    if name not in _ELEMENTWISE:
        raise NotSupportedError(not_supported_message(f"{qualname} on a nested tensor"))
    if fn is None:
        fn = getattr(torch, name)
    if name == "scaled_dot_product_attention" and kwargs.get("is_causal", args[5] if len(args) > 5 else False):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found.")
    if any(len(n) != len(first) for n in nested):
        raise RuntimeError(f"{qualname}: nested tensors with different numbers of components")
    if name in _BINARY:
        from .. import Tensor
        dense = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor) and a.dim() > 0]
        if dense and first._layout is not jagged:
            raise RuntimeError("Expected both to be nested, but got a nested self and non-nested other")
        if any(a.dim() >= first.dim() for a in dense):
            raise NotSupportedError(not_supported_message(f"{qualname} of a jagged nested tensor and a dense "
                                                          "tensor with a batch dimension"))
    fn = getattr(fn, "_msnb_fx_original", fn)
    out = []
    for i in range(len(first)):
        a = [x._components[i] if isinstance(x, NestedTensor) else x for x in args]
        k = {key: v._components[i] if isinstance(v, NestedTensor) else v for key, v in kwargs.items()}
        out.append(fn(*a, **k))
    return first._like(out)


_hook.OVERRIDES[NestedTensor] = _function


def _components_of(tensor_list, dtype, device, copy):
    from .. import Tensor, tensor
    items = list(tensor_list.unbind(0)) if isinstance(tensor_list, Tensor) else list(tensor_list)
    if not items:
        raise RuntimeError("nested_tensor needs at least one tensor")
    out = []
    for t in items:
        if not isinstance(t, Tensor):
            t = tensor(t, dtype=dtype)
        if copy:
            t = t.detach().clone()
        if dtype is not None and t.dtype != dtype:
            t = t.to(dtype)
        out.append(t)
    for i, t in enumerate(out):
        if t.dim() != out[0].dim():
            raise RuntimeError(f"All Tensors given to nested_tensor must have the same dimension. Found dimension "
                               f"{t.dim()} for Tensor at index {i} and dimension {out[0].dim()} for Tensor at index 0.")
    return out


def _check_layout(components, layout):
    if layout is None or layout is strided:
        return strided
    if layout is not jagged:
        raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout}")
    rest = {tuple(c.shape[1:]) for c in components}
    if len(rest) != 1 or components[0].dim() < 1:
        raise RuntimeError("Cannot represent given tensor list as a nested tensor with the jagged layout. Note that "
                           "the jagged layout only allows for a single ragged dimension. For example: (B, *, D_0, "
                           "D_1, ..., D_N), with ragged * dim.")
    return jagged


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False) -> NestedTensor:
    """msnb implementation of ``torch.nested.nested_tensor``: copies of the tensors, as one nested tensor."""
    comps = _components_of(tensor_list, dtype, device, copy=True)
    layout = _check_layout(comps, layout)
    nt = NestedTensor(comps, layout)
    if requires_grad:
        nt.requires_grad_(True)
    return nt


def as_nested_tensor(ts, dtype=None, device=None, layout=None) -> NestedTensor:
    """msnb implementation of ``torch.nested.as_nested_tensor``: the tensors themselves (autograd reaches them)."""
    comps = _components_of(ts, dtype, device, copy=False)
    return NestedTensor(comps, _check_layout(comps, layout))


def to_padded_tensor(input, padding, output_size=None):  # noqa: A002 - PyTorch's name
    """msnb implementation of ``torch.nested.to_padded_tensor``: one dense tensor, ``padding`` where a
    component is shorter (differentiable: msnb's pad and stack)."""
    from .. import stack
    from ..nn import functional as F
    if not isinstance(input, NestedTensor):
        raise RuntimeError("to_padded_tensor: expected a nested tensor")
    comps = input._components
    n = comps[0].dim()
    sizes = [max(c.shape[d] for c in comps) for d in range(n)]
    if output_size is not None:
        output_size = list(output_size)
        if len(output_size) != n + 1 or output_size[0] != len(comps) or any(
                o < s for o, s in zip(output_size[1:], sizes)):
            raise RuntimeError(f"Value in output_size is less than NestedTensor padded size. Truncation is not "
                               f"supported. (output_size {output_size}, padded size {[len(comps), *sizes]})")
        sizes = output_size[1:]
    padded = []
    for c in comps:
        pads = []
        for d in reversed(range(n)):
            pads += [0, sizes[d] - c.shape[d]]
        padded.append(F.pad(c, pads, value=padding) if any(pads) else c)
    return stack(padded)


__getattr__ = module_getattr("torch.nested")
