"""Sparse COO tensors: ``torch.sparse_coo_tensor``, ``Tensor.to_sparse`` and
what PyTorch programs do with them.

A COO tensor is an int64 ``indices`` tensor (sparse_dim x nnz) and a
``values`` tensor (nnz x dense dims), both ordinary adapter tensors.  The
products (``torch.sparse.mm``, ``torch.spmm``, ``torch.mm`` / ``@`` with a
sparse operand) gather the dense rows the nonzeros touch and scatter-add
them into the result with MindSpore's gather / index-add kernels, with
gradients to the dense operand and to ``values`` (PyTorch's).  ``coalesce``
and ``to_sparse`` find the index order on the host (numpy); MindSpore's
``COOTensor`` is not used, since these products need autograd to both
operands.

Only the COO layout exists: CSR / CSC / BSR / BSC tensors, and dense ops
msnb has no sparse version of, raise msnb's unsupported error.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _dtype as D
from ._missing import NotSupportedError, not_supported_message
from .autograd.grad_mode import no_grad
from .autograd.graph import record

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged",
           "SparseCooTensor", "sparse_coo_tensor", "to_sparse", "spmm", "sparse_mm", "sparse_sum", "sparse_matmul",
           "is_sparse_coo"]


class layout:  # noqa: N801 - torch's spelling
    """msnb implementation of ``torch.layout`` (``torch.strided``, ``torch.sparse_coo`` ...)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")


def _unsupported(what):
    return NotSupportedError(not_supported_message(what))


def _tensor(data, dtype=None):
    from ._ops.creation import tensor
    return tensor(data, dtype=dtype)


class SparseCooTensor:
    """A torch tensor with ``layout=torch.sparse_coo``."""

    layout = sparse_coo
    is_sparse = True
    is_sparse_csr = False
    is_cuda = False
    is_quantized = False
    is_meta = False
    is_mps = False
    is_nested = False

    def __init__(self, indices, values, size, coalesced=False):
        self._i = indices
        self._vals = values
        self._size = tuple(int(s) for s in size)
        self._coalesced = bool(coalesced)
        self._leaf_grad = False  # a leaf made with requires_grad=True: its .grad is sparse
        self._grad = None

    # --- metadata ---------------------------------------------------------------------
    @property
    def shape(self):
        from ._tensor import Size
        return Size(self._size)

    def size(self, dim=None):
        return self.shape if dim is None else self._size[dim]

    def dim(self):
        return len(self._size)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._size)

    def numel(self):
        n = 1
        for s in self._size:
            n *= s
        return n

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def device(self):
        return self._vals.device

    @property
    def is_cpu(self):
        return self._vals.is_cpu

    def sparse_dim(self):
        return self._i.shape[0]

    def dense_dim(self):
        return self._vals.ndim - 1

    def _nnz(self):
        return self._i.shape[1]

    def is_coalesced(self):
        return self._coalesced

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def element_size(self):
        return self.dtype.itemsize

    def is_contiguous(self, memory_format=None):
        raise RuntimeError("Tensors of type SparseTensorImpl do not have is_contiguous")

    # --- autograd ---------------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    def requires_grad_(self, requires_grad=True):
        if self._vals.grad_fn is not None and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if self._vals.grad_fn is None:
            self._vals = self._vals.detach().requires_grad_(requires_grad)
            self._leaf_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def is_leaf(self):
        return self._vals.grad_fn is None

    @property
    def grad(self):
        """A leaf's gradient: sparse, on the leaf's indices (what ``torch.sparse.mm`` and ``to_dense`` give)."""
        if not (self._leaf_grad and self._vals.grad is not None):
            return None
        g = self._vals.grad
        if self._coalesced:
            return SparseCooTensor(self._i, g, self._size, True)
        # the gradient at each distinct index (every duplicate of it got the same one), as PyTorch's coalesced grad
        sd = self.sparse_dim()
        uniq, first = np.unique(_flat_keys(self), return_index=True)
        idx = _tensor(np.stack(np.unravel_index(uniq, self._size[:sd])).astype(np.int64).reshape(sd, -1))
        return SparseCooTensor(idx, g.index_select(0, _tensor(first.astype(np.int64))), self._size, True)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise _unsupported("setting .grad of a sparse COO tensor")
        if self._leaf_grad:
            self._vals.grad = None

    def detach(self):
        return SparseCooTensor(self._i, self._vals.detach(), self._size, self._coalesced)

    def clone(self, *, memory_format=None):
        return SparseCooTensor(self._i.clone(), self._vals.clone(), self._size, self._coalesced)

    # --- parts --------------------------------------------------------------------------
    def _indices(self):
        return self._i

    def _values(self):
        return self._vals

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._i

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def coalesce(self):
        """Sorted, duplicate-free indices (found on the host); duplicates' values summed (index-add kernel)."""
        if self._coalesced:
            return self
        sd = self.sparse_dim()
        idx = self._i.numpy().reshape(sd, -1)
        if idx.shape[1] == 0:
            return SparseCooTensor(self._i, self._vals, self._size, True)
        flat = np.ravel_multi_index(tuple(idx), self._size[:sd])
        uniq, inv = np.unique(flat, return_inverse=True)
        new_i = _tensor(np.stack(np.unravel_index(uniq, self._size[:sd])).astype(np.int64).reshape(sd, -1))
        inv_t = _tensor(inv.reshape(-1).astype(np.int64))
        v = self._vals
        with no_grad():
            from ._ops.creation import zeros
            new_v = zeros((len(uniq), *v.shape[1:]), dtype=v.dtype).index_add(0, inv_t, v)
        if _needs_grad(v):
            record("CoalesceBackward0", new_v, (v,), lambda g: (g.index_select(0, inv_t),))
        return SparseCooTensor(new_i, new_v, self._size, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor (values index-put-added at their indices); gradient to ``values``."""
        from ._ops.creation import zeros
        v = self._vals
        idx = tuple(self._i[k] for k in range(self.sparse_dim()))
        with no_grad():
            out = zeros(self._size, dtype=v.dtype)
            if self._nnz():
                out = out.index_put(idx, v, accumulate=True)
        if _needs_grad(v):
            record("ToDenseBackward0", out, (v,), lambda g: (g[idx],))
        return out if dtype is None else out.to(dtype)

    # --- conversions --------------------------------------------------------------------
    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, D.dtype):
                dtype = a
            elif isinstance(a, SparseCooTensor):
                dtype = a.dtype
            elif hasattr(a, "dtype") and hasattr(a, "shape"):
                dtype = a.dtype
        if kwargs.get("layout") not in (None, sparse_coo):
            raise _unsupported(f"converting a sparse COO tensor to layout {kwargs['layout']!r}")
        if dtype is None or dtype is self.dtype:
            return self
        return SparseCooTensor(self._i, self._vals.to(dtype), self._size, self._coalesced)

    def cpu(self):
        return self

    def cuda(self, *args, **kwargs):
        return self

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return f"torch.sparse.{D._name_of(self.dtype)}Tensor"
        raise _unsupported("torch.Tensor.type(dtype) on a sparse COO tensor")

    def float(self):
        return self.to(D.float32)

    def double(self):
        return self.to(D.float64)

    def half(self):
        return self.to(D.float16)

    def long(self):
        return self.to(D.int64)

    def int(self):
        return self.to(D.int32)

    def bool(self):
        return self.to(D.bool)

    def to_sparse(self, *args, layout=None, **kwargs):
        if layout not in (None, sparse_coo):
            raise _unsupported(f"torch.Tensor.to_sparse(layout={layout!r})")
        return self

    def to_sparse_coo(self):
        return self

    def t(self):
        if self.sparse_dim() != 2 or self.dense_dim() != 0:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but self is "
                               f"{self.sparse_dim()}-D sparse and {self.dense_dim()}-D dense")
        return SparseCooTensor(self._i.flip(0), self._vals, self._size[::-1], False)

    def transpose(self, dim0, dim1):
        n = self.dim()
        d0, d1 = dim0 % n, dim1 % n
        if d0 == d1:
            return self
        if max(d0, d1) >= self.sparse_dim():
            raise _unsupported("transposing a dense dimension of a hybrid sparse COO tensor")
        order = list(range(self.sparse_dim()))
        order[d0], order[d1] = order[d1], order[d0]
        size = list(self._size)
        size[d0], size[d1] = size[d1], size[d0]
        return SparseCooTensor(self._i[order], self._vals, size, False)

    # --- reductions and arithmetic -------------------------------------------------------
    def sum(self, dim=None, keepdim=False, dtype=None):
        if keepdim:
            raise _unsupported("torch.Tensor.sum(keepdim=True) on a sparse COO tensor")
        return sparse_sum(self, dim, dtype=dtype)

    def _map_values(self, vals):
        return SparseCooTensor(self._i, vals, self._size, self._coalesced)

    def __neg__(self):
        return self._map_values(-self._vals)

    def neg(self):
        return -self

    def __mul__(self, other):
        if isinstance(other, SparseCooTensor):
            if other._size != self._size:
                raise RuntimeError(f"mul(sparse, sparse): sizes {list(self._size)} and {list(other._size)} differ")
            if not (self._coalesced and other._coalesced):
                raise _unsupported("torch.mul of uncoalesced sparse COO tensors (call .coalesce() on both first)")
            a, b = self, other
            ka, kb = _flat_keys(a), _flat_keys(b)
            common, ia, ib = np.intersect1d(ka, kb, return_indices=True)
            ia_t, ib_t = _tensor(ia.astype(np.int64)), _tensor(ib.astype(np.int64))
            idx = a._i.index_select(1, ia_t)
            return SparseCooTensor(idx, a._vals.index_select(0, ia_t) * b._vals.index_select(0, ib_t), a._size, True)
        if isinstance(other, numbers.Number) or (hasattr(other, "shape") and len(other.shape) == 0):
            return self._map_values(self._vals * other)
        if hasattr(other, "shape") and tuple(other.shape) == self._size and self.dense_dim() == 0:
            # dense * sparse keeps the sparsity: the dense entries at the nonzeros
            return self._map_values(self._vals * other[tuple(self._i[k] for k in range(self.sparse_dim()))])
        raise _unsupported("torch.mul of a sparse COO tensor with a dense tensor of another shape")

    __rmul__ = __mul__
    mul = __mul__

    def __truediv__(self, other):
        if isinstance(other, numbers.Number) or (hasattr(other, "shape") and len(other.shape) == 0
                                                 and not isinstance(other, SparseCooTensor)):
            return self._map_values(self._vals / other)
        raise _unsupported("torch.div of a sparse COO tensor by a tensor")

    div = __truediv__

    def __add__(self, other, alpha=1):
        if isinstance(other, SparseCooTensor):
            if other._size != self._size:
                raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                                   f"{list(self._size)} while other has size {list(other._size)} (FYI: dense-sparse "
                                   "addition does not currently support broadcasting)")
            if other.sparse_dim() != self.sparse_dim():
                raise _unsupported("adding sparse COO tensors of different sparse dims")
            return _merge_add(self, other, alpha)
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")

    def add(self, other, *, alpha=1):
        return self.__add__(other, alpha)

    def __sub__(self, other):
        if isinstance(other, SparseCooTensor):
            return self.__add__(other, alpha=-1)
        raise RuntimeError("sub(sparse, dense) is not supported. Use sub(dense, sparse) instead.")

    sub = __sub__

    def __radd__(self, other):
        """``dense + sparse`` is dense, as in PyTorch."""
        if isinstance(other, numbers.Number):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        return _dense_plus_sparse(other, self, 1)

    def __rsub__(self, other):
        if isinstance(other, numbers.Number):
            raise RuntimeError("sub(sparse, dense) is not supported. Use sub(dense, sparse) instead.")
        return _dense_plus_sparse(other, self, -1)

    def __matmul__(self, other):
        return _matmul(self, other, "MmBackward0", mm_semantics=True)

    def __rmatmul__(self, other):
        return _matmul(other, self, "MmBackward0", mm_semantics=True)

    def mm(self, mat2):
        return _matmul(self, mat2, "MmBackward0", mm_semantics=True, two_d=True)

    matmul = __matmul__

    def __bool__(self):
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")

    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __repr__(self):
        return _repr(self)

    __str__ = __repr__

    def __getattr__(self, name):
        # a Tensor method msnb has no sparse version of
        if name.startswith("_"):
            raise AttributeError(f"'SparseCooTensor' object has no attribute '{name}'")
        from ._api_names import TENSOR_METHODS
        if name in TENSOR_METHODS:
            raise _unsupported(f"torch.Tensor.{name} on a sparse COO tensor")
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")


def _no_sparse_version(name, torch_name):
    def method(self, *args, **kwargs):
        raise _unsupported(f"{torch_name} on a sparse COO tensor")
    method.__name__ = name
    return method


# operators msnb has no sparse version of (PyTorch has some): msnb's unsupported error, never a dense fallback
for _dunder, _torch_name in {
        "__getitem__": "indexing", "__setitem__": "indexed assignment", "__iter__": "iteration",
        "__pow__": "torch.pow", "__rpow__": "torch.pow", "__rtruediv__": "torch.div", "__floordiv__": "floor division",
        "__rfloordiv__": "floor division", "__mod__": "torch.remainder", "__rmod__": "torch.remainder",
        "__lt__": "torch.lt", "__le__": "torch.le", "__gt__": "torch.gt", "__ge__": "torch.ge", "__eq__": "torch.eq",
        "__ne__": "torch.ne", "__abs__": "torch.abs", "__invert__": "torch.bitwise_not", "__and__": "torch.bitwise_and",
        "__or__": "torch.bitwise_or", "__xor__": "torch.bitwise_xor", "__float__": "float()", "__int__": "int()",
        "__index__": "operator.index", "__iadd__": "in-place add", "__isub__": "in-place sub",
        "__imul__": "in-place mul", "__itruediv__": "in-place div"}.items():
    setattr(SparseCooTensor, _dunder, _no_sparse_version(_dunder, _torch_name))
SparseCooTensor.__hash__ = object.__hash__


def is_sparse_coo(x) -> bool:
    return type(x) is SparseCooTensor


def _needs_grad(*ts):
    from ._core import needs_grad
    return needs_grad(*ts)


def _flat_keys(s):
    sd = s.sparse_dim()
    return np.ravel_multi_index(tuple(s._i.numpy().reshape(sd, -1)), s._size[:sd])


def _merge_add(a, b, alpha):
    """``a + alpha * b`` for two sparse COO tensors as PyTorch's CPU kernel does it: one merge walk over both
    nonzero lists in stored order (equal indices meet and add; coalesced only when both inputs are)."""
    from ._ops.creation import zeros
    ka, kb = _flat_keys(a), _flat_keys(b)
    pos_a, pos_b, keys = np.empty(len(ka), np.int64), np.empty(len(kb), np.int64), []
    i = j = 0
    while i < len(ka) or j < len(kb):
        if j == len(kb) or (i < len(ka) and ka[i] < kb[j]):
            pos_a[i] = len(keys)
            keys.append(ka[i])
            i += 1
        elif i == len(ka) or kb[j] < ka[i]:
            pos_b[j] = len(keys)
            keys.append(kb[j])
            j += 1
        else:
            pos_a[i] = pos_b[j] = len(keys)
            keys.append(ka[i])
            i += 1
            j += 1
    sd = a.sparse_dim()
    idx = _tensor(np.stack(np.unravel_index(np.asarray(keys, np.int64), a._size[:sd])).astype(np.int64)
                  .reshape(sd, -1))
    dt = D.promote_types(a.dtype, b.dtype)
    vb = b._vals.to(dt) if alpha == 1 else b._vals.to(dt) * alpha
    vals = zeros((len(keys), *a._vals.shape[1:]), dtype=dt).index_add(0, _tensor(pos_a), a._vals.to(dt)) \
        .index_add(0, _tensor(pos_b), vb)
    return SparseCooTensor(idx, vals, a._size, a._coalesced and b._coalesced)


def _dense_plus_sparse(dense, sp, sign):
    if tuple(dense.shape) != sp._size:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(dense.shape)} while other has size {list(sp._size)} (FYI: dense-sparse addition "
                           "does not currently support broadcasting)")
    dense_part = sp.to_dense()
    out_dtype = D.promote_types(dense.dtype, sp.dtype)
    return dense.to(out_dtype) + (dense_part.to(out_dtype) if sign > 0 else -dense_part.to(out_dtype))


def _check_mm_operand(dense, sp, side):
    if dense.dtype is not sp.dtype:
        raise RuntimeError(f"expected scalar type {D._name_of(sp.dtype)} but found {D._name_of(dense.dtype)}")
    if sp.sparse_dim() != 2 or sp.dense_dim() != 0:
        raise _unsupported("a product with a hybrid or non-2-D sparse COO tensor")


def _rows_times(row, col, vals, dense, n_out):
    """out[row[k]] += vals[k] * dense[col[k]] for every nonzero k (no autograd here)."""
    from ._ops.creation import zeros
    contrib = dense.index_select(0, col) * vals.reshape(-1, *([1] * (dense.ndim - 1)))
    return zeros((n_out, *dense.shape[1:]), dtype=dense.dtype).index_add(0, row, contrib)


def _matmul(a, b, name, mm_semantics, two_d=False):
    """``sparse @ dense`` or ``dense @ sparse`` (the other operand dense and 1-D or 2-D)."""
    sp_left = isinstance(a, SparseCooTensor)
    sp, dense = (a, b) if sp_left else (b, a)
    if isinstance(dense, SparseCooTensor):
        raise _unsupported("the product of two sparse COO tensors")
    if mm_semantics and sp._leaf_grad:
        raise _unsupported("torch.mm / @ with a sparse COO leaf that requires grad (PyTorch gives it a dense "
                           ".grad); torch.sparse.mm gives its sparse gradient")
    _check_mm_operand(dense, sp, "right" if sp_left else "left")
    if two_d and dense.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {dense.ndim}-D tensor")
    vec = dense.ndim == 1
    d2 = dense.unsqueeze(-1 if sp_left else 0) if vec else dense
    if d2.ndim != 2:
        raise _unsupported("a batched product with a sparse COO tensor")
    m, k = sp._size
    if sp_left and d2.shape[0] != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {d2.shape[0]}x{d2.shape[1]})")
    if not sp_left and d2.shape[1] != m:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({d2.shape[0]}x{d2.shape[1]} and {m}x{k})")
    row, col, v = sp._i[0], sp._i[1], sp._vals
    with no_grad():
        if sp_left:  # out[r] += v * D[c]
            out = _rows_times(row, col, v, d2, m)
        else:  # (D @ S)^T = S^T @ D^T: out^T[c] += v * D^T[r]
            out = _rows_times(col, row, v, d2.t(), k).t().contiguous()
    if _needs_grad(v, d2):
        def backward(g):
            if sp_left:
                gv = (g.index_select(0, row) * d2.index_select(0, col)).sum(-1) if v.requires_grad else None
                gd = _rows_times(col, row, v, g, k) if d2.requires_grad else None
            else:
                gt, dt = g.t(), d2.t()
                gv = (gt.index_select(0, col) * dt.index_select(0, row)).sum(-1) if v.requires_grad else None
                gd = _rows_times(row, col, v, gt, m).t() if d2.requires_grad else None
            return gv, gd
        record(name, out, (v, d2), backward, saved=(d2,))
    if vec:
        out = out.squeeze(-1 if sp_left else 0)
    return out


def sparse_matmul(a, b, two_d=False):
    """``torch.matmul`` / ``torch.mm`` with a sparse COO operand."""
    return _matmul(a, b, "MmBackward0", mm_semantics=True, two_d=two_d)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """msnb implementation of ``torch.sparse_coo_tensor``."""
    from ._tensor import Tensor
    from .autograd.grad_mode import STATE
    idx = indices if isinstance(indices, Tensor) else _tensor(np.asarray(indices))
    idx = idx.detach().to(D.int64)  # PyTorch takes any real indices and casts them
    if idx.ndim == 1 and idx.shape[0] == 0:
        idx = idx.reshape(1, 0)
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    vals = values if isinstance(values, Tensor) else _tensor(values)
    if dtype is not None:
        vals = vals.to(dtype)
    sd, nnz = idx.shape
    if vals.ndim == 0 or vals.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {vals.shape[0] if vals.ndim else 1}")
    arr = idx.numpy()
    if size is None:
        size = tuple(int(m) + 1 for m in arr.max(1)) if nnz else (0,) * sd
        size = (*size, *vals.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sd + vals.ndim - 1:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sd}) + dense_dim ({vals.ndim - 1}), but got "
                           f"{len(size)}")
    if tuple(vals.shape[1:]) != size[sd:]:
        raise RuntimeError(f"values has incorrect size, expected {[nnz, *size[sd:]]}, got {list(vals.shape)}")
    if nnz:
        for d in range(sd):
            lo, hi = int(arr[d].min()), int(arr[d].max())
            if lo < 0:
                raise RuntimeError(f"found negative index {lo} for dim {d}")
            if hi >= size[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                                   f"index {hi}")
    coalesced = nnz <= 1 if is_coalesced is None else bool(is_coalesced)
    if requires_grad:
        vals = vals.detach().requires_grad_(True)
        out = SparseCooTensor(idx, vals, size, coalesced)
        out._leaf_grad = True
        return out
    if STATE.enabled and vals.requires_grad:
        src = vals
        with no_grad():
            vals = src.view_as(src).clone()
        record("SparseCooTensorWithDimsAndTensorsBackward0", vals, (src,), lambda g: (g,))
    return SparseCooTensor(idx, vals, size, coalesced)


def to_sparse(x, *args, layout=None, blocksize=None, dense_dim=None):
    """msnb implementation of ``Tensor.to_sparse`` (COO only; nonzeros found on the host)."""
    if layout not in (None, sparse_coo):
        raise _unsupported(f"torch.Tensor.to_sparse(layout={layout!r})")
    sd = args[0] if args else x.ndim
    if not isinstance(sd, int) or not 0 < sd <= max(x.ndim, 1):
        raise RuntimeError(f"sparse_dim must be in [1, {x.ndim}], got {sd}")
    arr = x.detach().numpy()
    mask = arr != 0 if sd == x.ndim else (arr.reshape(*arr.shape[:sd], -1) != 0).any(-1)
    nz = np.stack(np.nonzero(mask)).astype(np.int64).reshape(sd, -1)
    idx = _tensor(nz)
    parts = tuple(idx[k] for k in range(sd))
    with no_grad():
        vals = x[parts] if nz.shape[1] else x.reshape(-1, *x.shape[sd:])[:0].clone()
    if _needs_grad(x):
        from ._ops.creation import zeros
        shape = tuple(x.shape)
        record("ToSparseBackward1" if sd == x.ndim else "ToSparseBackward0", vals, (x,),
               lambda g: (zeros(shape, dtype=g.dtype).index_put(parts, g, accumulate=True),))
    return SparseCooTensor(idx, vals, tuple(x.shape), True)


def spmm(input, mat2):
    """msnb implementation of ``torch.spmm`` (sparse @ dense, or a dense product)."""
    if isinstance(input, SparseCooTensor) or isinstance(mat2, SparseCooTensor):
        return _matmul(input, mat2, "MmBackward0", mm_semantics=True, two_d=True)
    from ._ops.linalg import mm
    return mm(input, mat2)


def sparse_mm(sparse, dense, reduce="sum"):
    """msnb implementation of ``torch.sparse.mm``: sparse COO @ dense, gradient to both (the sparse one on its
    own indices)."""
    if reduce != "sum":
        raise _unsupported(f"torch.sparse.mm(reduce={reduce!r})")
    if not isinstance(sparse, SparseCooTensor):
        from ._ops.linalg import mm
        return mm(sparse, dense)
    return _matmul(sparse, dense, "SparseAddmmBackward0", mm_semantics=False, two_d=True)


def sparse_sum(input, dim=None, dtype=None):
    """msnb implementation of ``torch.sparse.sum``: a dense 0-d tensor over every dim, else sparse over the
    remaining sparse dims (dense when none remain)."""
    if not isinstance(input, SparseCooTensor):
        from ._ops.reduction import sum as dense_sum
        return dense_sum(input, dim, dtype=dtype) if dim is not None else dense_sum(input, dtype=dtype)
    v = input._vals if dtype is None else input._vals.to(dtype)
    if dim is None:
        return v.sum()
    input = input.coalesce()  # as PyTorch: the result is coalesced
    v = input._vals if dtype is None else input._vals.to(dtype)
    dims = sorted({d % input.dim() for d in ((dim,) if isinstance(dim, int) else dim)})
    sd = input.sparse_dim()
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        v = v.sum(dense_dims)
    sparse_dims = [d for d in dims if d < sd]
    keep = [d for d in range(sd) if d not in sparse_dims]
    if not sparse_dims:
        return SparseCooTensor(input._i, v, [s for d, s in enumerate(input._size) if d not in dims], True)
    if not keep:
        return v.sum(0)
    size = [s for d, s in enumerate(input._size) if d not in dims]
    return SparseCooTensor(input._i[keep], v, size, False).coalesce()


def _repr(s: SparseCooTensor) -> str:
    from ._tensor_str import PRINT_OPTS, array_str

    def part(prefix, t, indent):
        arr = t.detach().numpy()
        if t.dtype in (D.float16, D.bfloat16):
            arr = arr.astype(np.float32)
        body = array_str(arr, t.dtype.is_floating_point or t.dtype.is_complex, indent + len(prefix))
        if arr.size == 0:
            body += f", size={tuple(t.shape)}"
        return prefix + body + ")"

    head = "tensor("
    indices = part("indices=tensor(", s._i, len(head))
    values = part("values=tensor(", s._vals, len(head))
    d = s.dtype
    suffixes = [f"size={tuple(s._size)}", f"nnz={s._nnz()}"]
    if d not in (D.get_default_dtype(), D.int64, D.bool):
        suffixes.append(f"dtype={d}")
    suffixes.append("layout=torch.sparse_coo")
    if s.grad_fn is not None:
        suffixes.append(f"grad_fn=<{s.grad_fn.name()}>")
    elif s.requires_grad:
        suffixes.append("requires_grad=True")
    # PyTorch starts a sparse tensor's suffixes on a new line, then wraps at the line width
    out = [head + indices + ",\n" + " " * len(head) + values, ",\n" + " " * len(head) + suffixes[0]]
    line = len(head) + len(suffixes[0])
    for suffix in suffixes[1:]:
        if line + len(suffix) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * len(head) + suffix)
            line = len(head) + len(suffix)
        else:
            out.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(out) + ")"


def _strided_only(name, what="sparse coordinate tensor"):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {what} layout but got Strided")
    method.__name__ = name
    method.__doc__ = f"msnb implementation of ``torch.Tensor.{name}`` on a dense tensor: PyTorch's RuntimeError."
    return method


#: what the sparse-only Tensor methods do on a dense (strided) tensor, as in PyTorch
DENSE_METHODS = {
    "coalesce": _strided_only("coalesce"),
    "indices": _strided_only("indices"),
    "is_coalesced": _strided_only("is_coalesced"),
    "values": _strided_only("values", "sparse tensor"),
    "to_dense": lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype),
    "sparse_dim": lambda self: 0,
    "dense_dim": lambda self: self.ndim,
    "to_sparse": to_sparse,
    "to_sparse_coo": lambda self: to_sparse(self),
}
