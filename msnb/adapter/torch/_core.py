"""Plumbing shared by every adapter op: wrapping MindSpore results as adapter
tensors, deciding whether to record autograd, type promotion of operands,
and PyTorch's alias semantics (views and in-place writes).

Alias model
-----------
MindSpore's CPU backend has no memory-sharing views, so msnb keeps PyTorch's
semantics itself.  A view remembers its root base, a function that derives
it from the root (``_vfn``) and one that writes a new value of the view back
into the root (``_vinv``).  An in-place op computes the new value out of
place, writes it into the root, then refreshes every live view of that root,
so every alias sees every write -- including MindSpore code reading the same
objects.  Autograd follows the same path (the write-back is a differentiable
op), which is how PyTorch's ``CopySlices`` behaves.

Recorded metadata
-----------------
MindSpore runs PyNative kernels asynchronously, and its dtype/shape getters
wait until the kernel producing the tensor has run.  An adapter op reads its
operands' dtypes and shapes (promotion, broadcasting checks), so reading them
from MindSpore would make every op wait for the previous one.  Ops that know
their result's dtype and shape record them on it (:func:`meta`, the
``_dt``/``_sh`` attributes), and ``Tensor.dtype``/``shape`` read those first.
A tensor nothing recorded on reads MindSpore's getters once and keeps the
answer (``read_meta``).  ``_ms.set_data`` -- the only way a tensor's data
changes under its identity -- moves the record along with the data.  Setting
``MSNB_CHECK_META=1`` makes every read compare the record with MindSpore's
getters (for test runs).
"""

from __future__ import annotations

import os
import weakref

from .._dispatch import KA, K
from .._ms import SHARED, TensorPy, ms, set_data
from . import _dtype as D
from .autograd.grad_mode import STATE, no_grad
from .autograd.graph import record

__all__ = ["wrap", "adopt", "KA", "needs_grad", "to_ms_operand", "binary_operands", "inplace", "make_view",
           "Tensor_", "snapshot", "write_out", "cast", "wrap_fresh", "record", "K", "STATE", "no_grad", "ms",
           "meta", "copy_meta", "shape_of", "read_meta", "CHECK_META"]

Tensor_ = None  # set by _tensor once the class exists (avoids an import cycle)
_MS_TENSOR = ms.Tensor


def wrap(x):
    """Re-class a fresh MindSpore tensor as an adapter tensor (no copy)."""
    tx = type(x)
    if tx is not Tensor_:
        # a Parameter or other subclass becomes a plain alias; the isinstance check
        # (through ABCMeta, ~0.3 us) is skipped for the usual plain MindSpore result
        if tx is not _MS_TENSOR and isinstance(x, Tensor_):
            x = K.identity(x)
        x.__class__ = Tensor_
    if STATE.inference:
        x._inf = True
    return x


def adopt(r, dtype, shape):
    """``r``, the result of a ``KA`` kernel (plain results come back already re-classed, in
    the kernel's own frame: see ``_ms.adapted``), as an adapter tensor with ``dtype`` and
    ``shape`` recorded (:func:`meta`): what the one-step paths of elementwise ops share.
    Anything else a kernel returns (a Parameter, a subclass) goes through :func:`wrap`."""
    if type(r) is not Tensor_:
        r = wrap(r)
    r._dt = dtype
    r._sh = shape
    if STATE.inference:
        r._inf = True
    return r


#: compare recorded dtypes/shapes with MindSpore's getters on every read
CHECK_META = os.environ.get("MSNB_CHECK_META", "") not in ("", "0")
_ms_shape = TensorPy.shape.__get__
_ms_dtype = TensorPy.dtype.__get__


def meta(t, dtype, shape):
    """Record ``t``'s dtype (a torch dtype) and shape (a tuple); returns ``t``.
    Only for a fresh op result whose dtype and shape are known for certain."""
    t._dt = dtype
    t._sh = shape
    if STATE.inference:  # made inside inference_mode: an inference tensor
        t._inf = True
    return t


def copy_meta(dst, src):
    """``dst`` (a fresh copy of ``src``) gets ``src``'s recorded metadata, if any."""
    d = getattr(src, "_dt", None)
    if d is not None and d is not D.bfloat16:  # MindSpore's CPU copy kernel has no bfloat16
        dst._dt = d
        dst._sh = src._sh
    return dst


def _meta_mismatch(t, what, recorded, real):
    raise AssertionError(f"msnb: recorded {what} {recorded} of a tensor is wrong: MindSpore has {real}")


def read_meta(t):
    """``(dtype, shape)`` from MindSpore's getters, kept on ``t`` (set by ``_tensor``)."""
    raise NotImplementedError


if CHECK_META:
    def shape_of(x) -> tuple:
        """``x``'s shape as a tuple, checked against MindSpore's getter."""
        s = getattr(x, "_sh", None)
        real = tuple(_ms_shape(x))
        if s is not None and s != real:
            _meta_mismatch(x, "shape", s, real)
        if s is None and type(x) is Tensor_:
            read_meta(x)
        return real
else:
    def shape_of(x) -> tuple:
        """``x``'s shape as a tuple: the recorded one if there is one (no wait
        for ``x``'s kernel), else MindSpore's."""
        s = getattr(x, "_sh", None)
        if s is not None:
            return s
        return read_meta(x)[1] if type(x) is Tensor_ else tuple(_ms_shape(x))


def wrap_fresh(x, *inputs):
    """Like :func:`wrap`, but never return one of ``inputs`` itself: some
    MindSpore ops hand back their input unchanged when there is nothing to do."""
    for i in inputs:
        if x is i:
            x = K.identity(x)
            break
    return wrap(x)


def needs_grad(*ts) -> bool:
    if not STATE.enabled:
        return False
    for t in ts:
        # (isinstance(t, Tensor_) goes through ABCMeta: Python numbers are ruled out first)
        if (type(t) is Tensor_ or (isinstance(t, TensorPy) and isinstance(t, Tensor_))) and \
                (t._grad_fn is not None or t._req_grad):
            return True
    return False


def to_ms_operand(x):
    """Python scalars stay scalars; tensors pass through; numpy/lists become tensors."""
    if isinstance(x, (int, float, bool, complex, TensorPy)):
        return x
    if type(x).__module__.partition(".")[0] == "torch":  # real PyTorch's tensor (or module), not msnb's
        raise TypeError(
            f"msnb: an operand is real PyTorch's {type(x).__module__}.{type(x).__qualname__} (made outside a "
            "%%torch_on_ascend cell); msnb's ops take msnb tensors: create it in a magic cell, or convert it "
            "with torch.from_numpy(t.detach().numpy())")
    from ._ops.creation import tensor
    return tensor(x)


def binary_operands(a, b):
    """Promote two operands as PyTorch does; return (a, b, result_dtype).

    Tensors are cast to the result dtype; Python scalars stay scalars unless
    both are scalars (then one becomes a 0-d tensor)."""
    # fast paths: the common tensor-op-tensor of one dtype, and tensor-op-Python-number
    tb_ = type(b)
    if type(a) is Tensor_:
        da = a.dtype
        if tb_ is Tensor_:
            if b.dtype is da:
                return a, b, da
        elif tb_ is float:
            if da.is_floating_point and da is not D.float64:
                return a, b, da
        elif tb_ is int and da._kind in "fiu":
            return a, (float(b) if da.is_floating_point else b), da
    if not isinstance(a, TensorPy):
        a = to_ms_operand(a)
    if not isinstance(b, TensorPy):
        b = to_ms_operand(b)
    ta, tb = isinstance(a, TensorPy), isinstance(b, TensorPy)
    if ta and tb:
        da, db = a.dtype, b.dtype
        if da is db:
            return a, b, da
    rt = D.result_type(a, b)
    if ta and a.dtype is not rt:
        a = cast(a, rt)
    if tb and b.dtype is not rt:
        b = cast(b, rt)
    if not ta and not tb:
        from ._ops.creation import tensor
        a = tensor(a, dtype=rt)
    if not ta and rt.is_floating_point and isinstance(a, int):
        a = float(a)
    if not tb and rt.is_floating_point and isinstance(b, int):
        b = float(b)
    if rt.is_complex:  # MindSpore makes a Python complex operand complex64, even against complex128
        from ._ops.creation import tensor
        if not ta:
            a = tensor(a, dtype=rt)
        if not tb:
            b = tensor(b, dtype=rt)
    elif rt is D.float64:  # MindSpore rounds a Python float operand to float32, even against float64
        if not ta:
            a = _f64(a)
        if not tb:
            b = _f64(b)
    return a, b, rt


def _real_part(g):
    """The gradient a real tensor gets from a complex one: its real part."""
    if g.dtype.is_complex:
        from ._ops.complex import real
        return real(g)
    return g


def _f64(x):
    # an adapter tensor: autograd may save it for backward (it reads ``_v``)
    import numpy as np
    return meta(wrap(ms.Tensor(np.float64(x))), D.float64, ())


def cast(x, dtype):
    """Differentiable dtype conversion (returns ``x`` itself when nothing changes)."""
    dtype = D.to_torch_dtype(dtype)
    if x.dtype is dtype:
        return x
    src = x.dtype
    out = meta(wrap(K.cast(x, dtype)), dtype, shape_of(x))
    if needs_grad(x) and (dtype.is_floating_point or dtype.is_complex) and \
            (src.is_floating_point or src.is_complex):
        record("ToCopyBackward0", out, (x,), lambda g: (cast(_real_part(g) if not src.is_complex else g, src),))
    return out


# --- in-place writes and views ---------------------------------------------------

INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
                     "to get a normal tensor before doing inplace update.See "
                     "https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_REQUIRES_GRAD = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
_VIEW_LEAF_INPLACE = ("a view of a leaf Variable that requires grad is being used in an in-place "
                      "operation.")


def _tracks_grad(t) -> bool:
    return t._grad_fn is not None or t._req_grad


def share_numpy(arr, dtype):
    """A tensor over ``arr``'s memory (``torch.from_numpy``): marked as a
    shared host buffer, so :func:`set_data` writes in-place results into it."""
    t = meta(wrap(ms.Tensor.from_numpy(arr)), dtype, tuple(arr.shape))
    t.__dict__[SHARED] = arr
    return t


def inplace(self, new):
    """Make ``self`` (and every alias of it) hold ``new``; returns ``self``.

    ``new`` is a fresh result computed out of place, already of ``self``'s
    shape.  Its dtype is cast to ``self``'s, as PyTorch's in-place ops do."""
    if self._inf and not STATE.inference:
        raise RuntimeError(INFERENCE_INPLACE)
    if new.dtype is not self.dtype:
        if not D.can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {D._name_of(new.dtype)} can't be cast to the desired "
                               f"output type {D._name_of(self.dtype)}")
        new = cast(new, self.dtype)
    if tuple(new.shape) != tuple(self.shape):
        new = new.expand(self.shape).contiguous()
    grad_on = STATE.enabled
    base = self._vbase
    if base is None:
        if grad_on and self._req_grad and self._grad_fn is None:
            raise RuntimeError(_LEAF_INPLACE)
        if grad_on and new._grad_fn is None and self._grad_fn is not None:
            # a constant written over a tensor in the graph (``zero_``, ``fill_``):
            # the old value gets a zero gradient, as in PyTorch
            new = copy_meta(wrap(K.identity(new)), new)
            record("FillBackward0", new, (self,), lambda g: (g * 0,))
        set_data(self, new)
        self._v += 1
        if grad_on and (new._grad_fn is not None or self._grad_fn is not None):
            self._grad_fn, self._output_nr = new._grad_fn, new._output_nr
        _refresh_views(self, grad_on)
        return self
    detached = self._vdetached
    track = grad_on and not detached and (_tracks_grad(new) or _tracks_grad(base))
    if track and base._req_grad and base._grad_fn is None:
        raise RuntimeError(_VIEW_LEAF_INPLACE)
    if track:
        new_root = self._vinv(base, new)
    else:
        with no_grad():
            new_root = self._vinv(base, new)
    set_data(base, new_root)
    base._v += 1
    if track:
        base._grad_fn, base._output_nr = new_root._grad_fn, new_root._output_nr
    _refresh_views(base, track)
    return self


_OUT_GRAD = ("functions with out=... arguments don't support automatic differentiation, but one of the "
             "arguments requires grad.")
_SELF_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                 "memory location. Please clone() the tensor before performing the operation.")
_INPUT_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                  "single memory location. Please clone() the tensor before performing the operation.")


def write_out(out, result, inputs=()):
    """Honour an ``out=`` argument as PyTorch does, and return ``out``.

    Refused: autograd through ``out=`` (an input or ``out`` requiring grad while grad mode is
    on), an ``out`` whose elements share memory (an expanded tensor), an ``out`` sharing
    memory with one of ``inputs`` (the op's tensor arguments, for the ops that refuse any
    overlap), a result dtype that cannot be cast to ``out``'s.  ``out`` keeps its dtype; one of
    another shape is resized, with PyTorch's deprecation warning when it had elements."""
    if out is None:
        return result
    if out._inf and not STATE.inference:
        raise RuntimeError(INFERENCE_INPLACE)
    if STATE.enabled and (_tracks_grad(result) or out.requires_grad):
        raise RuntimeError(f"{_op_name(result)}{_OUT_GRAD}")
    if _self_overlapping(out):
        raise RuntimeError(_SELF_OVERLAP)
    if any(overlaps(out, t) for t in inputs):
        raise RuntimeError(_INPUT_OVERLAP)
    if tuple(out.shape) == tuple(result.shape):
        return inplace(out, result)
    if out.numel():
        import warnings
        warnings.warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, "
                      f"which does not match the required output shape {list(result.shape)}. This behavior is "
                      "deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                      "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                      "elements with t.resize_(0).", UserWarning, stacklevel=_user_stacklevel())
    if out._vbase is not None:
        raise RuntimeError("msnb: cannot resize a view passed as out=")
    if result.dtype is not out.dtype:
        if not D.can_cast(result.dtype, out.dtype):
            raise RuntimeError(f"result type {D._name_of(result.dtype)} can't be cast to the desired "
                               f"output type {D._name_of(out.dtype)}")
        result = cast(result, out.dtype)
    set_data(out, copy_meta(wrap(K.identity(result)), result))
    out._v += 1
    _refresh_views(out, False)
    return out


def _user_stacklevel():
    """The ``stacklevel`` that attributes a warning to the first caller outside msnb's adapter
    (PyTorch's warnings from its kernels point at the user's line)."""
    import sys
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    f, level = sys._getframe(1), 1
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(here):
        f, level = f.f_back, level + 1
    return level


def _op_name(result):
    """``add(): ``: the op's name as PyTorch's out= errors start, from the result's grad_fn."""
    import re
    fn = result._grad_fn
    name = re.sub(r"Backward\d*$", "", fn.name()) if fn is not None else ""
    name = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    return f"{name}(): " if name else ""


def _positions(t):
    """Where ``t``'s elements sit in its root's storage (row-major numbers)."""
    import numpy as np
    root = t._vbase
    if root is None:
        return np.arange(t.numel())
    with no_grad():
        from ._ops.creation import arange
        return np.asarray(t._vfn(arange(root.numel()).reshape(tuple(root.shape))).numpy()).reshape(-1)


def _self_overlapping(t):
    """Whether elements of ``t`` share memory in PyTorch: ``t`` is (a view of) an expanded tensor
    (msnb's ``expand`` copies, and records the shape it expanded from) and two of its elements come
    from one source element."""
    root = t._vbase if t._vbase is not None else t
    src = root.__dict__.get("_expanded")
    if not src or t.numel() < 2:
        return False
    import numpy as np
    n = int(np.prod(src))
    ids = np.broadcast_to(np.arange(n).reshape(src), tuple(root.shape)).reshape(-1)[_positions(t)]
    return np.unique(ids).size < ids.size


def same_elements(a, b):
    """Whether ``a`` and ``b`` are the very same elements of one memory, in the same order."""
    import numpy as np
    if a is b:
        return True
    ra = a._vbase if a._vbase is not None else a
    rb = b._vbase if b._vbase is not None else b
    return ra is rb and tuple(a.shape) == tuple(b.shape) and np.array_equal(_positions(a), _positions(b))


def overlaps(a, b):
    """Whether tensors ``a`` and ``b`` share an element of memory (the same tensor, a view of the
    other, or views of one root whose regions meet)."""
    if a is b:
        return True
    if not isinstance(b, TensorPy) or not isinstance(a, TensorPy) or not a.numel() or not b.numel():
        return False
    ra = a._vbase if a._vbase is not None else a
    rb = b._vbase if b._vbase is not None else b
    if ra is not rb:
        return False
    import numpy as np
    return bool(np.intersect1d(_positions(a), _positions(b)).size)


def snapshot(t):
    """A new tensor holding ``t``'s current value and autograd identity but
    belonging to no alias group, so an op about to overwrite ``t`` in place
    can save its old value for backward."""
    s = copy_meta(wrap(K.identity(t)), t)
    if t._grad_fn is not None:
        s._grad_fn, s._output_nr = t._grad_fn, t._output_nr
    elif t._req_grad:
        from .autograd.graph import acc_node
        s._grad_fn, s._output_nr = acc_node(t), 0
    return s


def _ms_name(d):
    return repr(d).split(".")[-1].capitalize()


def _refresh_views(root, track):
    views = root.__dict__.get("_views")
    if not views:
        return
    for v in list(views):
        if v._vdetached or not (track and _tracks_grad(root)):
            with no_grad():
                nv = v._vfn(root)
            set_data(v, nv)
            if not v._vdetached:
                v._grad_fn = None if not _tracks_grad(root) else v._grad_fn
        else:
            nv = v._vfn(root)
            set_data(v, nv)
            v._grad_fn, v._output_nr = nv._grad_fn, nv._output_nr
        v._v = root._v


def make_view(src, out, fn, inv, detached=False):
    """Register ``out`` (already computed from ``src`` by ``fn``) as a view.

    ``fn(t)`` derives the view from ``t``; ``inv(t, new)`` returns ``t`` with
    the view's region replaced by ``new``.  Both are composed down to the root
    so a view of a view writes straight into the root."""
    base = src._vbase
    if base is None:
        root, vfn, vinv = src, fn, inv
    else:
        pfn, pinv = src._vfn, src._vinv
        root = base

        def vfn(r, pfn=pfn, fn=fn):
            return fn(pfn(r))

        def vinv(r, new, pfn=pfn, pinv=pinv, inv=inv):
            return pinv(r, inv(pfn(r), new))
        detached = detached or src._vdetached
    if src._inf or out._inf:  # a view is an inference tensor when its base is one, wherever it is taken
        out._inf = src._inf
    out._vbase = root
    out._vfn = vfn
    out._vinv = vinv
    out._vdetached = detached
    out._v = root._v
    views = root.__dict__.get("_views")
    if views is None:
        views = root._views = weakref.WeakSet()
    views.add(out)
    return out


def wrap_dim(dim, ndim: int) -> int:
    """``dim`` in ``[0, ndim)``; PyTorch's ``IndexError`` when it is out of range
    (a 0-d tensor accepts 0 and -1, as in PyTorch)."""
    m = ndim if ndim > 0 else 1
    if not -m <= dim < m:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-m}, {m - 1}], but got {dim})")
    return dim % m
