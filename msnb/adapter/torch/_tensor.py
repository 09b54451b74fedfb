"""``torch.Tensor`` for msnb.

An adapter tensor *is* a MindSpore tensor: ``Tensor`` subclasses
``mindspore.Tensor`` (never modifies it), so MindSpore ops and cells accept it
as it is.  On top it carries PyTorch's API and semantics: dtypes and
promotion, views that share writes with their base, in-place ops, autograd
(``requires_grad``, ``backward``, hooks), printing and formatting.

MindSpore methods whose names PyTorch also uses but msnb does not implement
are blocked with a clear error rather than running with MindSpore semantics.
"""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from .. import _ms as _ms_internal
from .._ms import TensorPy, ms, set_data
from ..graph import capture as _graph_capture
from ..graph import step as _graph_step
from . import _core, _missing
from . import _dtype as D
from . import _sparse_coo as _sparse
from ._device import active_device, device as _device_cls, refuse_meta as _refuse_meta
from ._ops import creation as C, indexing as I, linalg as L, pointwise as P, random as R, \
    reduction as Rd, shape as S
from .autograd import graph as G
from .autograd.grad_mode import STATE, no_grad

__all__ = ["Tensor", "Size"]

_ms_shape = TensorPy.shape.__get__
_ms_dtype = TensorPy.dtype.__get__
_FROM_MS = D._FROM_MS
# MindSpore's dtype getter returns its module-level dtype objects, which hash
# slowly (~1 us): look them up by identity first
_MS_DTYPES = [ms.float16, ms.bfloat16, ms.float32, ms.float64, ms.int8, ms.int16, ms.int32, ms.int64,
              ms.uint8, ms.bool_, ms.complex64, ms.complex128]
_BY_ID = {id(m): _FROM_MS[m] for m in _MS_DTYPES}


def _raw_dtype(t):
    m = _ms_dtype(t)
    d = _BY_ID.get(id(m))
    return d if d is not None else _FROM_MS[m]


def _read_meta(t):
    """``t``'s dtype and shape from MindSpore (waiting for its kernel if it
    is still queued).  A plain adapter tensor keeps them, as an op's result
    does: its metadata changes only through ``_ms.set_data``.  A Parameter
    does not (MindSpore's ``Parameter.set_data`` can change it)."""
    d, s = _raw_dtype(t), tuple(_ms_shape(t))
    if type(t) is Tensor:
        t._dt = d
        t._sh = s
    return d, s


class Size(tuple):
    """msnb implementation of ``torch.Size``."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


def _unsupported(qualname):
    def blocked(self, *args, **kwargs):
        raise NotImplementedError(
            f"{qualname} is not supported by msnb yet (see the support list: "
            "python -m msnb.adapter.support --markdown)")
    blocked.__name__ = qualname.rsplit(".", 1)[-1]
    blocked._msnb_unsupported = True
    return blocked


class Tensor(ms.Tensor):
    """msnb implementation of ``torch.Tensor``."""

    # per-instance state lives in __dict__ only when it differs from these
    _grad_fn = None
    _output_nr = 0
    _req_grad = False
    _v = 0
    _vbase = None
    _vfn = None
    _vinv = None
    _vdetached = False
    grad = None
    _is_param = False

    def __init__(self, *args, dtype=None, device=None, requires_grad=False):
        # torch.Tensor(2, 3) -> uninitialised float tensor; torch.Tensor([1, 2]) -> float data
        if len(args) == 1 and isinstance(args[0], TensorPy):
            arr = np.asarray(args[0].asnumpy())
        elif len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            arr = np.asarray(args[0], dtype=D.get_default_dtype().numpy)
        else:
            arr = np.zeros(C.size_args(args), dtype=D.get_default_dtype().numpy)
        ms.Tensor.__init__(self, arr)
        if requires_grad:
            self.requires_grad_(True)

    def __getattr__(self, name):
        # only reached when normal lookup fails: a PyTorch method msnb lacks says so
        if name.startswith("_"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        _missing.missing_tensor_attr(self, name)

    # --- metadata ----------------------------------------------------------
    # dtype and shape recorded by the op that made the tensor (see "Recorded
    # metadata" in _core): read without waiting for its kernel
    _dt = None
    _sh = None

    @property
    def shape(self):
        s = self._sh
        return Size(s if s is not None else _read_meta(self)[1])

    def size(self, dim=None):
        s = self._sh
        if s is None:
            s = _read_meta(self)[1]
        if dim is None:
            return Size(s)
        return s[dim]

    @property
    def dtype(self):
        d = self._dt
        return d if d is not None else _read_meta(self)[0]

    @property
    def ndim(self):
        s = self._sh
        return len(s if s is not None else _read_meta(self)[1])

    def dim(self):
        s = self._sh
        return len(s if s is not None else _read_meta(self)[1])

    ndimension = dim

    def numel(self):
        s = self._sh
        n = 1
        for k in (s if s is not None else _read_meta(self)[1]):
            n *= k
        return n

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    @property
    def device(self):
        return active_device()

    @property
    def is_cuda(self):
        return False

    @property
    def is_cpu(self):
        return active_device().type == "cpu"

    is_sparse = False
    is_quantized = False

    def dequantize(self):
        """msnb implementation of ``torch.Tensor.dequantize``: a tensor that is not quantized is returned as is
        (quantized tensors are ``msnb.adapter.torch._quantized.QTensor``)."""
        return self
    is_meta = False
    is_mps = is_xpu = is_mkldnn = is_nested = is_sparse_csr = False
    layout = _sparse.strided

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_contiguous(self, memory_format=None):
        return not self.__dict__.get("_noncontig", False)

    def stride(self, dim=None):
        st, acc = [], 1
        for s in reversed(self.shape):
            st.append(acc)
            acc *= s
        st = tuple(reversed(st))
        return st if dim is None else st[dim]

    def data_ptr(self):
        return id(self._root())

    def _root(self):
        return self._vbase if self._vbase is not None else self

    def _is_alias(self):
        return self._vbase is not None or bool(self.__dict__.get("_views"))

    def untyped_storage(self):
        return _Storage(self._root())

    # --- autograd ----------------------------------------------------------
    @property
    def requires_grad(self):
        return self._req_grad or self._grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want "
                                   "to use a computed variable in a subgraph that doesn't require "
                                   "differentiation use var_no_grad = var.detach().")
            return self
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._req_grad = bool(requires_grad)
        if self._is_param:
            ms.Parameter.requires_grad.__set__(self, bool(requires_grad))
        return self

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def retains_grad(self):
        fn = self._grad_fn
        return bool(fn is not None and fn._retain and self._output_nr in fn._retain)

    def retain_grad(self):
        if self._grad_fn is None:
            if not self._req_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        import weakref
        if self._grad_fn._retain is None:
            self._grad_fn._retain = {}
        self._grad_fn._retain[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """msnb implementation of ``Tensor.register_hook``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._add_tensor_hook(self._output_nr, hook)
        hooks = self.__dict__.get("_leaf_hooks")
        if hooks is None:
            hooks = self._leaf_hooks = []
        hooks.append(hook)
        return G._Handle(hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """msnb implementation of ``Tensor.backward``."""
        if _graph_step.active() and _graph_step.backward(self, gradient, retain_graph, create_graph, inputs):
            return  # answered by the compiled training step (graph/step.py)
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        return S.detach(self)

    def detach_(self):
        if self._vbase is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._req_grad = False
        return self

    @property
    def data(self):
        return S.detach(self)

    @data.setter
    def data(self, value):
        if not isinstance(value, TensorPy):
            raise TypeError("data must be a Tensor")
        set_data(self, value if value._vbase is None and not getattr(value, "_is_param", False) else
                 _core.K.identity(value))
        self._v += 1
        _core._refresh_views(self, False)

    # MindSpore's own in-place writers, which MindSpore code may call on an
    # adapter tensor: the recorded dtype/shape no longer hold afterwards
    def assign_value(self, value):
        self.__dict__.pop("_dt", None)
        self.__dict__.pop("_sh", None)
        return super().assign_value(value)

    def set_dtype(self, dtype):
        self.__dict__.pop("_dt", None)
        self.__dict__.pop("_sh", None)
        return super().set_dtype(dtype)

    @property
    def T(self):  # noqa: N802
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self):  # noqa: N802
        return self.transpose(-2, -1)

    @property
    def mH(self):  # noqa: N802
        from ._ops.shape import matrix_adjoint
        return matrix_adjoint(self, "tensor.mH")

    @property
    def H(self):  # noqa: N802
        from ._ops.shape import matrix_adjoint
        return matrix_adjoint(self, "tensor.H", batches=False)

    # --- conversion --------------------------------------------------------
    def numpy(self, *, force=False):
        if _graph_capture._CURRENT[0] is not None:
            _graph_capture.host_read()
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self.dtype is D.bfloat16:
            return _core.K.cast(self, D.float32).asnumpy()
        return self.asnumpy()

    def __array__(self, dtype=None, copy=None):
        a = self.numpy(force=True)
        return a.astype(dtype, copy=False) if dtype is not None else a

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        v = self.numpy(force=True).reshape(()).item()
        return v

    def tolist(self):
        return self.numpy(force=True).tolist()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __reduce_ex__(self, proto):
        return (_rebuild, (self.detach().numpy(), repr(self.dtype), self.requires_grad and self.is_leaf))

    def __deepcopy__(self, memo):
        out = S.clone(self.detach())
        if self.requires_grad and self.is_leaf:
            out.requires_grad_(True)
        memo[id(self)] = out
        return out

    # --- dtype / device moves ------------------------------------------------
    def to(self, *args, **kwargs):
        """msnb implementation of ``Tensor.to``: dtype changes apply; every
        device (``"cuda"``, ``0``, ``"cpu"``, ``torch.device``) maps to the
        active MindSpore device."""
        dtype = kwargs.pop("dtype", None)
        _refuse_meta(kwargs.pop("device", None), "Tensor.to('meta')")
        kwargs.pop("non_blocking", None)
        copy = kwargs.pop("copy", False)
        fmt = kwargs.pop("memory_format", None)
        if fmt is not None:
            from ._memory_format import check_memory_format
            check_memory_format(fmt, self.dim(), "to")
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        flags = [a for a in args if isinstance(a, bool)]  # to(dtype, non_blocking, copy)
        if len(flags) > 2:
            raise TypeError("to() received an invalid combination of arguments")
        if len(flags) == 2:
            copy = copy or flags[1]
        args = [a for a in args if not isinstance(a, bool)]
        for a in args:
            if isinstance(a, D.dtype):
                dtype = a
            elif isinstance(a, TensorPy):
                dtype = a.dtype
            elif isinstance(a, (str, int, _device_cls)) and not isinstance(a, bool):
                from ._device import parse_device
                _refuse_meta(parse_device(a), "Tensor.to('meta')")
            elif a is None:
                continue
            else:
                raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
        out = self if dtype is None else _core.cast(self, dtype)
        if copy and out is self:
            out = S.clone(self)
        return out

    def type(self, dtype=None, non_blocking=False, *, memory_format=None, **kwargs):
        """``x.type()`` names the legacy type; ``x.type(torch.LongTensor)``,
        ``x.type('torch.LongTensor')`` and ``x.type(torch.int64)`` convert
        (``async=`` is PyTorch's deprecated spelling of ``non_blocking=``)."""
        unknown = set(kwargs) - {"async"}
        if unknown:
            raise TypeError(f"type() got an unexpected keyword argument '{sorted(unknown)[0]}'")
        if dtype is None:
            return _TYPE_NAMES.get(self.dtype, "torch.Tensor")
        if isinstance(dtype, str):
            names = {v: k for k, v in _TYPE_NAMES.items()}
            if dtype not in names:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = names[dtype]
        elif not isinstance(dtype, D.dtype) and isinstance(getattr(dtype, "dtype", None), D.dtype):
            dtype = dtype.dtype  # torch.LongTensor and the other legacy type objects
        return self.to(dtype)

    def type_as(self, other):
        return self.to(other.dtype)

    def cpu(self, memory_format=None):
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        return self

    def npu(self, device=None, non_blocking=False):
        return self

    def pin_memory(self, device=None):
        return self

    def is_pinned(self, device=None):
        return False

    def share_memory_(self):
        """msnb implementation of ``Tensor.share_memory_``: the data moves to a shared-memory
        segment that processes of ``torch.multiprocessing`` read and write (CPU)."""
        from .multiprocessing.reductions import share
        return share(self)

    def is_shared(self):
        return _ms_internal.SHARED in self.__dict__

    # memory_format is accepted as in PyTorch: msnb tensors have one (contiguous) layout
    def float(self, memory_format=None):
        return _core.cast(self, D.float32)

    def double(self, memory_format=None):
        return _core.cast(self, D.float64)

    def half(self, memory_format=None):
        return _core.cast(self, D.float16)

    def bfloat16(self, memory_format=None):
        return _core.cast(self, D.bfloat16)

    def int(self, memory_format=None):
        return _core.cast(self, D.int32)

    def long(self, memory_format=None):
        return _core.cast(self, D.int64)

    def short(self, memory_format=None):
        return _core.cast(self, D.int16)

    def char(self, memory_format=None):
        return _core.cast(self, D.int8)

    def byte(self, memory_format=None):
        return _core.cast(self, D.uint8)

    def bool(self, memory_format=None):
        return _core.cast(self, D.bool)

    def cfloat(self, memory_format=None):
        return _core.cast(self, D.complex64)

    def cdouble(self, memory_format=None):
        return _core.cast(self, D.complex128)

    def softmax(self, dim, dtype=None):
        from .nn import functional as F
        return F.softmax(self, dim, dtype=dtype)

    def log_softmax(self, dim, dtype=None):
        from .nn import functional as F
        return F.log_softmax(self, dim, dtype=dtype)

    # --- printing ------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None):
        return _format(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self.item(), spec)
        if not spec:
            return repr(self)
        raise TypeError("unsupported format string passed to Tensor.__format__")

    # --- indexing ------------------------------------------------------------
    def __getitem__(self, idx):
        return I.getitem(self, idx)

    def __setitem__(self, idx, value):
        I.setitem(self, idx, value)

    # --- creation helpers ------------------------------------------------------
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        return C.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        size = C.sizes_or_keyword(size, kw, "size", "new_zeros")
        return C.zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        size = C.sizes_or_keyword(size, kw, "size", "new_ones")
        return C.ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        size = C.sizes_or_keyword(size, kw, "size", "new_empty")
        return C.zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_empty_strided(self, size, stride, dtype=None, device=None, requires_grad=False, layout=None,
                          pin_memory=False):
        """Contiguous and zero-filled (msnb tensors have one layout)."""
        return C.zeros(tuple(size), dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        return C.full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)

    # --- shape methods with PyTorch's varargs spellings --------------------------
    def view(self, *shape, **kw):
        if "dtype" in kw:
            return S.view(self, *shape, **kw)
        return S.view(self, *(C.sizes_or_keyword(shape, kw, "size", "view") if kw else shape))

    def reshape(self, *shape, **kw):
        return S.reshape(self, *(C.sizes_or_keyword(shape, kw, "shape", "reshape") if kw else shape))

    def permute(self, *dims, **kw):
        return S.permute(self, *(C.sizes_or_keyword(dims, kw, "dims", "permute") if kw else dims))

    def expand(self, *sizes, **kw):
        return S.expand(self, *(C.sizes_or_keyword(sizes, kw, "size", "expand") if kw else sizes))

    def repeat(self, *sizes, **kw):
        return S.repeat(self, *(C.sizes_or_keyword(sizes, kw, "repeats", "repeat") if kw else sizes))

    def flip(self, *dims, **kwargs):
        if "dims" in kwargs:
            dims = (kwargs.pop("dims"),)
        if kwargs:
            raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return S.flip(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)

    def sum(self, dim=None, keepdim=False, dtype=None):
        return Rd.sum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim=None, keepdim=False, dtype=None):
        return Rd.mean(self, dim, keepdim, dtype=dtype)

    def max(self, dim=None, keepdim=False):
        return Rd.max(self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        return Rd.min(self, dim, keepdim)

    def clamp(self, min=None, max=None):  # noqa: A002
        return P.clamp(self, min, max)

    clip = clamp

    def masked_fill(self, mask, value):
        return I.masked_fill(self, mask, value)

    def scatter(self, dim, index, src=None, value=None, reduce=None):
        return I.scatter(self, dim, index, src, value=value, reduce=reduce)

    def index_put_(self, indices, values, accumulate=False):
        return _core.inplace(self, I.index_put(self, tuple(indices), values, accumulate))

    def index_put(self, indices, values, accumulate=False):
        return I.index_put(self, tuple(indices), values, accumulate)

    def copy_(self, src, non_blocking=False):
        """msnb implementation of ``Tensor.copy_``: broadcasts and casts ``src``."""
        if not isinstance(src, TensorPy):
            src = C.tensor(src)
        src = src if isinstance(src, Tensor) else _core.wrap(_core.K.identity(src))
        if src.dtype is not self.dtype:
            src = _core.cast(src, self.dtype)
        new = S.expand(src, tuple(self.shape)) if tuple(src.shape) != tuple(self.shape) else S.clone(src)
        if _core.STATE.enabled and self._grad_fn is not None:
            # the overwritten value gets a zero gradient, as in PyTorch: a selection, not ``+ old * 0``,
            # which made an infinite or NaN old value NaN
            new = P.where(C.ones((), dtype=D.bool), new, _core.snapshot(self))
        if _core.needs_grad(self) and not _core.needs_grad(src) and self._grad_fn is None and self._req_grad:
            raise RuntimeError(_core._LEAF_INPLACE)
        return _core.inplace(self, new)

    def zero_(self):
        with no_grad():
            z = C.zeros_like(self)
        return _core.inplace(self, z)

    def fill_(self, value):
        if isinstance(value, TensorPy) and _core.needs_grad(value):
            return _core.inplace(self, S.expand(value.to(self.dtype), tuple(self.shape)))
        if isinstance(value, TensorPy):
            value = value.item()
        with no_grad():
            f = C.full(tuple(self.shape), value, dtype=self.dtype)
        return _core.inplace(self, f)

    def fill_diagonal_(self, fill_value, wrap=False):
        n = builtins.min(self.shape)
        idx = C.arange(n)
        return self.index_put_((idx, idx), fill_value)

    def apply_(self, fn):
        arr = np.vectorize(fn)(self.numpy(force=True)).astype(self.dtype.numpy)
        return _core.inplace(self, C.tensor(arr, dtype=self.dtype))

    def map_(self, other, fn):
        arr = np.vectorize(fn)(self.numpy(force=True), other.numpy(force=True)).astype(self.dtype.numpy)
        return _core.inplace(self, C.tensor(arr, dtype=self.dtype))

    def resize(self, *sizes):
        """The deprecated non-in-place ``Tensor.resize``: a new shape with the same number of elements."""
        import warnings
        warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
        sizes = C.size_args(sizes)
        n = int(np.prod(sizes))
        if n != self.numel():
            shown = "x".join(str(s) for s in sizes)
            raise RuntimeError(f"requested resize to {shown} ({n} elements in total), but the given tensor has a "
                               f"size of {'x'.join(str(s) for s in self.shape)} ({self.numel()} elements). "
                               "autograd's resize can only change the shape of a given tensor, while preserving "
                               "the number of elements. ")
        return self.reshape(sizes)

    def resize_(self, *sizes):
        sizes = C.size_args(sizes)
        n = int(np.prod(sizes))
        flat = self.detach().reshape(-1)
        if flat.numel() >= n:
            new = flat[:n].reshape(sizes)
        else:
            new = S.cat([flat, C.zeros(n - flat.numel(), dtype=self.dtype)]).reshape(sizes)
        set_data(self, _core.K.identity(new))
        self._v += 1
        return self

    def split(self, split_size, dim=0):
        return S.split(self, split_size, dim)

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        return R.uniform_(self, a, b, generator=generator)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return R.normal_(self, mean, std, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        return R.bernoulli_(self, p, generator=generator)

    def random_(self, from_=0, to=None, *, generator=None):
        return R.random_(self, from_, to, generator=generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        return R.exponential_(self, lambd, generator=generator)

    def geometric_(self, p, *, generator=None):
        return R.geometric_(self, p, generator=generator)

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        return R.log_normal_(self, mean, std, generator=generator)

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        return R.cauchy_(self, median, sigma, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        return R.bernoulli(self, p, generator=generator)

    def sort(self, dim=-1, descending=False, stable=False):
        return Rd.sort(self, dim, descending, stable)

    def numel_(self):
        return self.numel()

    def __array_priority__(self):
        return 1000


class _Storage:
    """What ``untyped_storage()`` exposes: identity of the shared data."""

    def __init__(self, root):
        self._root = root

    def data_ptr(self):
        return id(self._root)


def _rebuild(arr, dtype_name, requires_grad):
    t = C.tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


_TYPE_NAMES = {D.float32: "torch.FloatTensor", D.float64: "torch.DoubleTensor", D.float16: "torch.HalfTensor",
               D.bfloat16: "torch.BFloat16Tensor", D.int64: "torch.LongTensor", D.int32: "torch.IntTensor",
               D.int16: "torch.ShortTensor", D.int8: "torch.CharTensor", D.uint8: "torch.ByteTensor",
               D.bool: "torch.BoolTensor"}


# --- methods taken straight from the functional ops -------------------------------
_METHODS = {
    P: ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "neg",
        "abs", "exp", "exp2", "log", "log2", "log10", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "tanh",
        "sigmoid", "relu", "floor", "ceil", "round", "trunc", "frac", "sign", "reciprocal", "erf", "log1p",
        "expm1", "asin", "acos", "atan", "atan2", "sinh", "cosh", "maximum", "minimum", "lerp", "addcmul",
        "addcdiv", "eq", "ne", "lt", "le", "gt", "ge", "equal", "allclose", "isclose", "isnan", "isinf",
        "isfinite", "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or",
        "bitwise_xor", "bitwise_not", "nan_to_num", "signbit", "hypot", "greater", "greater_equal", "less",
        "less_equal", "not_equal", "multiply", "divide", "subtract", "negative", "absolute", "positive",
        "float_power", "xlogy", "logaddexp"],
    Rd: ["prod", "amax", "amin", "argmax", "argmin", "all", "any", "std", "var", "norm", "logsumexp",
         "cumsum", "cumprod", "topk", "argsort", "median", "count_nonzero", "nansum", "unique"],
    S: ["view_as", "reshape_as", "flatten", "unflatten", "squeeze", "unsqueeze", "transpose", "t",
        "movedim", "expand_as", "broadcast_to", "tile", "chunk", "unbind", "narrow", "select", "roll",
        "contiguous", "swapaxes", "swapdims", "tril", "triu", "diag", "clone", "repeat_interleave"],
    I: ["gather", "scatter_add", "index_select", "masked_select", "nonzero", "take_along_dim", "index_add",
        "take"],
    L: ["matmul", "mm", "bmm", "mv", "dot", "outer", "ger", "addmm", "baddbmm", "inner", "cross", "kron",
        "trace"],
}
from ._ops import complex as _cx  # noqa: E402
Tensor.real = property(_cx.real, doc="msnb implementation of ``Tensor.real`` (a copy, not a view).")
Tensor.imag = property(_cx.imag, doc="msnb implementation of ``Tensor.imag`` (a copy, not a view).")
for _n in ("conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "angle"):
    setattr(Tensor, _n, getattr(_cx, _n))
from ._ops import matrix as _mx  # noqa: E402
for _n in ("det", "logdet", "inverse", "pinverse", "matrix_power", "matrix_exp", "diagonal", "diag_embed"):
    setattr(Tensor, _n, getattr(_mx, _n))
from ._ops import special_fns as _sf  # noqa: E402
for _n in ("erfc", "erfinv", "digamma", "i0", "sinc", "logit", "xlog1py"):
    setattr(Tensor, _n, getattr(_sf, _n))
Tensor.lgamma, Tensor.mvlgamma = _sf.gammaln, _sf.multigammaln
Tensor.polygamma = lambda self, n: _sf.polygamma(n, self)
Tensor.polygamma.__doc__ = "msnb implementation of ``Tensor.polygamma``."
Tensor.svd, Tensor.qr, Tensor.cholesky, Tensor.slogdet = _mx.torch_svd, _mx.torch_qr, _mx.torch_cholesky, \
    _mx.torch_slogdet
from ._ops import lu as _lu  # noqa: E402
Tensor.lu = _lu.lu
from ._ops import factorized as _fz  # noqa: E402
Tensor.ormqr, Tensor.orgqr = _fz.ormqr, _fz.orgqr
from ._ops import arrange as _ar, positions as _pos  # noqa: E402
Tensor.unfold, Tensor.sum_to_size = _pos.unfold, _ar.sum_to_size
Tensor.where = lambda self, condition, other: P.where(condition, self, other)
Tensor.where.__doc__ = "msnb implementation of ``Tensor.where``: ``self`` where ``condition``, else ``other``."

for _mod, _names in _METHODS.items():
    for _n in _names:
        setattr(Tensor, _n, getattr(_mod, _n))

# in-place variants: compute out of place, then write through every alias
_INPLACE = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "neg",
            "abs", "exp", "log", "log2", "log10", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "tanh",
            "sigmoid", "relu", "floor", "ceil", "round", "trunc", "frac", "sign", "reciprocal", "erf",
            "log1p", "expm1", "clamp", "clip", "lerp", "addcmul", "addcdiv", "masked_fill", "scatter",
            "scatter_add", "index_add", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
            "logical_not", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
            "nan_to_num", "maximum", "minimum", "atan2", "asin", "acos", "atan", "sinh", "cosh", "tril",
            "triu", "t", "transpose", "squeeze", "unsqueeze", "mul", "multiply", "divide", "subtract",
            "negative", "absolute", "hypot", "xlogy", "float_power", "exp2", "addmm", "baddbmm"]
_SHAPE_CHANGING = {"t", "transpose", "squeeze", "unsqueeze", "swapaxes", "swapdims", "as_strided"}


def _make_inplace(name):
    fn = getattr(Tensor, name)

    if name in _SHAPE_CHANGING:
        def op_(self, *args, **kwargs):
            if self._vbase is not None or self.__dict__.get("_views"):
                raise RuntimeError(f"msnb: {name}_ on a tensor that has views (or is one) is not supported")
            new = fn(_core.snapshot(self), *args, **kwargs)
            set_data(self, _core.K.identity(new))
            if _core.STATE.enabled and new._grad_fn is not None:
                self._grad_fn, self._output_nr = new._grad_fn, new._output_nr
            self._v += 1
            return self
    else:
        def op_(self, *args, **kwargs):
            src = _core.snapshot(self) if _core.needs_grad(self, *args) else self
            return _core.inplace(self, fn(src, *args, **kwargs))
    op_.__name__ = name + "_"
    op_.__doc__ = f"msnb implementation of ``Tensor.{name}_`` (in place, through every alias)."
    return op_


for _n in _INPLACE:
    setattr(Tensor, _n + "_", _make_inplace(_n))


# --- operators ---------------------------------------------------------------------
def _r(fn):
    return lambda self, other: fn(other, self)


def _iop(fn):
    def op(self, other):
        src = _core.snapshot(self) if _core.needs_grad(self, other) else self
        return _core.inplace(self, fn(src, other))
    return op


# forward operators are the functional ops themselves (one Python call less per op)
Tensor.__add__ = P.add
Tensor.__radd__ = lambda self, other: P.add(other, self)
Tensor.__iadd__ = _iop(P.add)
Tensor.__sub__ = P.sub
Tensor.__rsub__ = lambda self, other: G.name_node(P.sub(other, self), "RsubBackward1", self)
Tensor.__isub__ = _iop(P.sub)
Tensor.__mul__ = P.mul
Tensor.__rmul__ = lambda self, other: P.mul(other, self)
Tensor.__imul__ = _iop(P.mul)
Tensor.__truediv__ = P.div
Tensor.__rtruediv__ = lambda self, other: P.div(other, self)
Tensor.__itruediv__ = _iop(P.div)
Tensor.__floordiv__ = P.floor_divide
Tensor.__rfloordiv__ = lambda self, other: P.floor_divide(other, self)
Tensor.__ifloordiv__ = _iop(P.floor_divide)
Tensor.__mod__ = P.remainder
Tensor.__rmod__ = lambda self, other: P.remainder(other, self)
Tensor.__imod__ = _iop(P.remainder)
Tensor.__pow__ = P.pow
Tensor.__rpow__ = lambda self, other: P.pow(other, self)
Tensor.__ipow__ = _iop(P.pow)
Tensor.__matmul__ = L.matmul
Tensor.__rmatmul__ = lambda self, other: L.matmul(other, self)
Tensor.__neg__ = P.neg


def _or_sparse(fn, reflected):
    """``dense <op> sparse`` is the sparse operand's reflected op (PyTorch's result layout)."""
    def op(self, other):
        if type(other) is _sparse.SparseCooTensor:
            return getattr(other, reflected)(self)
        return fn(self, other)
    op.__name__ = fn.__name__
    return op


# ``x + y`` tries the one-step path first (two Python frames above the kernel), then the sparse
# operand's reflected op, then the op's general path
Tensor.__add__ = P.one_step("add", _or_sparse(P._add, "__radd__"))
Tensor.__sub__ = P.one_step("sub", _or_sparse(P._sub, "__rsub__"))
Tensor.__mul__ = P.one_step("mul", _or_sparse(P._mul, "__rmul__"))
Tensor.__truediv__ = P.one_step("true_div", P._div, P._F)
Tensor.__matmul__ = L.one_step_matmul(_or_sparse(L.matmul, "__rmatmul__"))
for _name, _method in _sparse.DENSE_METHODS.items():  # sparse-only methods on a dense tensor, as in PyTorch
    setattr(Tensor, _name, _method)
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = P.abs
Tensor.__invert__ = lambda self: P.bitwise_not(self)
Tensor.__and__ = lambda self, other: P.bitwise_and(self, other)
Tensor.__rand__ = lambda self, other: P.bitwise_and(self, other)
Tensor.__iand__ = _iop(P.bitwise_and)
Tensor.__or__ = lambda self, other: P.bitwise_or(self, other)
Tensor.__ror__ = lambda self, other: P.bitwise_or(self, other)
Tensor.__ior__ = _iop(P.bitwise_or)
Tensor.__xor__ = lambda self, other: P.bitwise_xor(self, other)
Tensor.__rxor__ = lambda self, other: P.bitwise_xor(self, other)
Tensor.__ixor__ = _iop(P.bitwise_xor)
Tensor.__eq__ = lambda self, other: P.eq(self, other) if isinstance(other, (TensorPy, numbers.Number, np.ndarray, list)) else NotImplemented
Tensor.__ne__ = lambda self, other: P.ne(self, other) if isinstance(other, (TensorPy, numbers.Number, np.ndarray, list)) else NotImplemented
Tensor.__lt__ = P.lt
Tensor.__le__ = P.le
Tensor.__gt__ = P.gt
Tensor.__ge__ = P.ge
Tensor.__hash__ = lambda self: id(self)


# --- printing --------------------------------------------------------------------------
def _format(t, prefix="tensor("):
    """PyTorch's ``repr`` of ``t`` (see ``_tensor_str``)."""
    from ._tensor_str import tensor_repr
    arr = t.numpy(force=True)
    d = t.dtype
    if d in (D.float16, D.bfloat16):
        arr = arr.astype(np.float32)
    default = D.get_default_dtype()
    default_complex = D.complex128 if default is D.float64 else D.complex64
    show = d is not default if arr.size == 0 else d not in (default, D.int64, D.bool, default_complex)
    return tensor_repr(arr, dtype_name=str(d), floating=d.is_floating_point or d.is_complex, show_dtype=show,
                       shape=tuple(t.shape), grad_fn=t._grad_fn.name() if t._grad_fn is not None else None,
                       requires_grad=bool(t._req_grad), prefix=prefix)


# --- MindSpore methods PyTorch also names but msnb does not implement: block them ----------
_KEEP_MS = {  # MindSpore internals call these on tensors; their names are not torch API
    "asnumpy", "assign_value", "astype", "init_data", "set_dtype", "has_init", "param_info", "init",
    "init_flag", "set_init_flag", "data_sync", "set_const_arg", "const_arg", "virtual_flag",
    "offload", "offload_file_path", "move_to", "flush_from_cache", "is_init", "init_finished",
}


def _block_unimplemented():
    from ._api_names import TENSOR_METHODS
    for name in dir(ms.Tensor):
        if name.startswith("_") or name in _KEEP_MS or name in Tensor.__dict__:
            continue
        if name in TENSOR_METHODS:
            setattr(Tensor, name, _unsupported(f"torch.Tensor.{name}"))


_block_unimplemented()


def _check_meta():
    """``MSNB_CHECK_META=1``: every metadata read returns MindSpore's value
    and fails if the recorded one differs (a recorded dtype or shape that is
    wrong would silently change promotion and broadcasting)."""
    shape_of = _core.shape_of

    def dtype_of(self):
        d = self.__dict__.get("_dt")
        real = _raw_dtype(self)
        if d is not None and d is not real:
            _core._meta_mismatch(self, "dtype", d, real)
        if d is None:
            _read_meta(self)  # kept, so later reads check that it stays right
        return real

    Tensor.dtype = property(dtype_of)
    Tensor.shape = property(lambda self: Size(shape_of(self)))
    Tensor.ndim = property(lambda self: len(shape_of(self)))
    Tensor.dim = Tensor.ndimension = lambda self: len(shape_of(self))
    Tensor.size = lambda self, dim=None: Size(shape_of(self)) if dim is None else shape_of(self)[dim]
    Tensor.numel = Tensor.nelement = lambda self: Size(shape_of(self)).numel()


if _core.CHECK_META:
    _check_meta()
_core.Tensor_ = Tensor
_core.read_meta = _read_meta
_ms_internal.set_adapter_class(Tensor)


def bind_function_methods(namespace):
    """``x.f(*args)`` is ``torch.f(x, *args)`` in PyTorch: every PyTorch Tensor method msnb
    implements only as a ``torch.*`` function becomes a method calling that function."""
    from ._api_names import TENSOR_METHODS
    for name in sorted(TENSOR_METHODS):
        cur = getattr(Tensor, name, None)
        if cur is not None and not getattr(cur, "_msnb_unsupported", False):
            continue
        fn = namespace.get(name)
        if not callable(fn) or isinstance(fn, type) or not getattr(fn, "__module__", "").startswith("msnb."):
            continue

        def method(self, *args, _fn=fn, **kwargs):
            return _fn(self, *args, **kwargs)
        method.__name__ = name
        method.__qualname__ = f"Tensor.{name}"
        method.__doc__ = f"msnb implementation of ``torch.Tensor.{name}``: ``torch.{name}(self, ...)``."
        setattr(Tensor, name, method)
    _bind_inplace_variants(TENSOR_METHODS)


def _implemented(name):
    cur = getattr(Tensor, name, None)
    return cur is not None and not getattr(cur, "_msnb_unsupported", False)


def _bind_inplace_variants(names):
    """``x.f_(*args)`` is ``x.f(*args)`` written into ``x`` (PyTorch's in-place
    variant: the result is cast to ``x``'s dtype, refused on a leaf that
    requires grad, recorded by autograd): every PyTorch in-place method msnb
    lacks whose out-of-place form msnb has becomes one (:func:`_make_inplace`)."""
    for name in sorted(names):
        if name.endswith("_") and not name.startswith("_") and not _implemented(name) and _implemented(name[:-1]):
            setattr(Tensor, name, _make_inplace(name[:-1]))
