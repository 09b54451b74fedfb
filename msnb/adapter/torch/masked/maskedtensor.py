"""msnb's ``torch.masked.MaskedTensor``: a dense tensor paired with a bool mask.

PyTorch's prototype MaskedTensor keeps a ``data`` tensor and a ``mask`` of the
same shape; masked-out elements take no part in any computation and print as
``--``.  msnb holds the two as ordinary msnb tensors and answers the torch
functions called with it through the same hook ``torch.nested`` uses
(``fx._hook.OVERRIDES``; the wrappers go in place when the first MaskedTensor
is made and stay, so only programs that use MaskedTensor pay for the check):

* elementwise unary ops keep the mask; binary ops between two MaskedTensors
  need identical masks (PyTorch's ``ValueError`` otherwise), a plain tensor or
  a number as the other operand is combined with the MaskedTensor's mask;
* reductions (``sum mean prod amax amin argmax argmin all``) run
  ``torch.masked``'s masked reductions; an output element is masked-in when any
  of its inputs was;
* ``softmax`` / ``log_softmax`` are the masked normalisations (masked-out
  elements count as -inf); ``where`` picks data and mask alike;
* indexing and view ops (``[]``, ``transpose``, ``t``, ``reshape``,
  ``view``, ``flatten``, ``unsqueeze``) act on data and mask together
  (PyTorch 2.13 has no ``permute`` / ``T`` / ``squeeze`` / ``any`` for MaskedTensor:
  msnb refuses them by name).

Autograd runs on the data: an op's gradient path sees the masked-out inputs
replaced by 0 (the forward values are PyTorch's, computed on the raw data),
so NaN / inf in masked-out elements never reach a gradient - the tutorial's
``where`` and ``nansum`` cases.  ``grad`` (and ``torch.autograd.grad`` to a
MaskedTensor) is a MaskedTensor with the input's mask (PyTorch propagates the
mask of the gradient instead: an input reached only through masked-out
outputs gets a fully masked-out gradient there, a masked-in 0 here; and a
masked-in element in the branch ``torch.where`` does not take still gets the
chain rule's 0 * inf = NaN, as with plain tensors, where PyTorch masks it out).  Unlike PyTorch, a plain tensor's ``.grad`` stays a plain tensor (PyTorch
makes it a MaskedTensor once a MaskedTensor took part; the masked-in values
agree, elements that only fed masked-out values hold what the chain rule gives
where PyTorch prints ``--``).
Sparse (COO / CSR) MaskedTensors are refused by name.
"""

from __future__ import annotations

import builtins

from .._missing import NotSupportedError, missing_attribute, not_supported_message
from ..fx import _hook

__all__ = ["MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor"]

_UNARY = frozenset("""abs absolute acos arccos acosh asin asinh atan atanh ceil clamp clip cos cosh deg2rad digamma
    erf erfc erfinv exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 logit neg negative nan_to_num
    positive rad2deg reciprocal round rsqrt sgn sigmoid sign signbit sin sinc sinh sqrt square tan tanh trunc
    bitwise_not isnan isfinite""".split())
_BINARY = frozenset("""add sub subtract mul multiply div divide true_divide floor_divide pow fmod remainder atan2
    maximum minimum fmax fmin eq ne lt le gt ge greater greater_equal less less_equal not_equal bitwise_and bitwise_or bitwise_xor""".split())
_REDUCTIONS = frozenset("sum mean prod amax amin argmax argmin all".split())
_NORMALISE = frozenset("softmax log_softmax".split())
#: PyTorch 2.13's MaskedTensor has no permute / squeeze / any (TypeError there): msnb refuses them by name too
_VIEWS = frozenset("transpose t reshape view flatten unsqueeze".split())
_PASS_METHODS = frozenset("dim size numel".split())


def _torch():
    from ... import torch
    return torch


_HOOKED = []


def _hook_once():
    """The torch-function wrappers are in place from the first use of ``torch.masked.masked_tensor``
    (or the other MaskedTensor names: this module's import) on:
    ``torch.sum(masked_tensor(...))`` looks ``torch.sum`` up before its argument exists, so
    they cannot wait for the first MaskedTensor (nor come and go with each one)."""
    if not _HOOKED:
        _hook.acquire()
        _HOOKED.append(True)


def _unhook():
    """Puts the torch functions back (tests that check the fx hook is idle call this)."""
    if _HOOKED:
        _HOOKED.clear()
        _hook.release()


def _masks_must_match(masks):
    first = masks[0]
    for m in masks[1:]:
        if tuple(m.shape) != tuple(first.shape) or not bool((m == first).all()):
            raise ValueError("Input masks must match. If you need support for this, please open an issue on Github.")


class MaskedTensor:
    """msnb implementation of ``torch.masked.MaskedTensor`` (strided layout)."""

    def __init__(self, data, mask, requires_grad=False):
        torch = _torch()
        if getattr(data, "layout", torch.strided) is not torch.strided or \
                getattr(mask, "layout", torch.strided) is not torch.strided:
            raise NotSupportedError(not_supported_message("torch.masked.MaskedTensor with a sparse data or mask"))
        if not isinstance(data, torch.Tensor):
            raise TypeError(f"data must be a Tensor, got {type(data).__name__}")
        if not isinstance(mask, torch.Tensor):
            raise TypeError(f"mask must be a Tensor, got {type(mask).__name__}")
        if mask.dtype is not torch.bool:
            raise TypeError("mask must have dtype bool.")
        if data.dim() != mask.dim():
            raise ValueError("data.dim() must equal mask.dim()")
        if tuple(data.shape) != tuple(mask.shape):
            raise ValueError("data.size() must equal mask.size()")
        if requires_grad:
            data.requires_grad_(True)
        self._masked_data = data
        self._masked_mask = mask
        _hook_once()

    # --- what it is ---------------------------------------------------------------------
    def get_data(self):
        """The data tensor, masked-out elements included."""
        return self._masked_data

    def get_mask(self):
        """The bool mask (True: masked-in)."""
        return self._masked_mask

    def to_tensor(self, value):
        """A plain tensor: the data with masked-out elements replaced by ``value``."""
        torch = _torch()
        return torch.where(self._masked_mask, self._masked_data,
                           torch.full((), value, dtype=self._masked_data.dtype))

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return False

    is_sparse = False

    @property
    def shape(self):
        return self._masked_data.shape

    @property
    def dtype(self):
        return self._masked_data.dtype

    @property
    def device(self):
        return self._masked_data.device

    @property
    def layout(self):
        return self._masked_data.layout

    @property
    def ndim(self):
        return self._masked_data.ndim

    @property
    def requires_grad(self):
        return self._masked_data.requires_grad

    def requires_grad_(self, flag=True):
        self._masked_data.requires_grad_(flag)
        return self

    @property
    def is_leaf(self):
        return self._masked_data.is_leaf

    @property
    def grad(self):
        g = self._masked_data.grad
        return None if g is None else MaskedTensor(g, self._masked_mask)

    def detach(self):
        return MaskedTensor(self._masked_data.detach(), self._masked_mask)

    def clone(self):
        return MaskedTensor(self._masked_data.clone(), self._masked_mask.clone())

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Back-propagates from the data (a 0-d MaskedTensor needs no ``gradient``)."""
        if isinstance(gradient, MaskedTensor):
            gradient = gradient.to_tensor(0)
        self._masked_data.backward(gradient, retain_graph=retain_graph, create_graph=create_graph)

    def __len__(self):
        return len(self._masked_data)

    def __bool__(self):
        raise RuntimeError("Boolean value of a MaskedTensor is ambiguous")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _PASS_METHODS:
            return getattr(self._masked_data, name)
        base = name[:-1] if name.endswith("_") and name[:-1] in _UNARY | _BINARY else name
        if base in _UNARY | _BINARY | _REDUCTIONS | _NORMALISE | _VIEWS or name == "where":
            torch = _torch()

            def method(*args, **kwargs):
                out = _dispatch(base, f"torch.Tensor.{name}", (self,) + args, kwargs, getattr(torch, base, None))
                if base != name:  # in-place form: the result replaces this MaskedTensor's data and mask
                    self._masked_data, self._masked_mask = out._masked_data, out._masked_mask
                    return self
                return out
            return method
        raise NotSupportedError(not_supported_message(f"torch.masked.MaskedTensor.{name}"))

    # --- operators ------------------------------------------------------------------------
    def __getitem__(self, index):
        return MaskedTensor(self._masked_data[index], self._masked_mask[index])

    def _op(name, reflected=False):  # noqa: N805 - builds the operator methods below
        def op(self, other):
            args = (other, self) if reflected else (self, other)
            return _dispatch(name, f"torch.Tensor.__{name}__", args, {}, None)
        return op

    __add__, __radd__ = _op("add"), _op("add", True)
    __sub__, __rsub__ = _op("sub"), _op("sub", True)
    __mul__, __rmul__ = _op("mul"), _op("mul", True)
    __truediv__, __rtruediv__ = _op("div"), _op("div", True)
    __pow__, __rpow__ = _op("pow"), _op("pow", True)
    __eq__, __ne__ = _op("eq"), _op("ne")
    __lt__, __le__, __gt__, __ge__ = _op("lt"), _op("le"), _op("gt"), _op("ge")
    __and__, __or__, __xor__ = _op("bitwise_and"), _op("bitwise_or"), _op("bitwise_xor")
    del _op
    __hash__ = object.__hash__

    def __neg__(self):
        return _dispatch("neg", "torch.Tensor.__neg__", (self,), {}, None)

    def __invert__(self):
        return _dispatch("bitwise_not", "torch.Tensor.__invert__", (self,), {}, None)

    def __abs__(self):
        return _dispatch("abs", "torch.Tensor.__abs__", (self,), {}, None)

    def __repr__(self):
        return _format(self._masked_data, self._masked_mask)

    __str__ = __repr__


def _element(value, masked_in, is_float, scalar=False):
    if not masked_in:
        return "--" if scalar else "      --"
    return f"{value:8.4f}" if is_float else str(value)


def _format(data, mask):
    """PyTorch's MaskedTensor text: 8-wide ``%.4f`` floats, ``--`` for masked-out elements."""
    is_float = data.dtype.is_floating_point
    values, flags = data.detach().tolist(), mask.tolist()
    if data.dim() == 0:
        return f"MaskedTensor({_element(values, flags, is_float, True)}, {flags})"

    def rows(v, f, indent):
        pad = " " * indent
        if not isinstance(v[0] if v else None, list):
            return pad + "[" + ", ".join(_element(a, b, is_float) for a, b in zip(v, f)) + "]"
        inner = ",\n".join(rows(a, b, indent + 2) for a, b in zip(v, f))
        return f"{pad}[\n{inner}\n{pad}]"
    return "MaskedTensor(\n" + rows(values, flags, 2) + "\n)"


def _kwarg(args, kwargs, name, position, default=None):
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


def _safe(mt):
    """The data a gradient may flow through: masked-out elements replaced by 0 (data untouched without grad)."""
    d = mt._masked_data
    torch = _torch()
    return torch.where(mt._masked_mask, d, torch.zeros((), dtype=d.dtype))


def _grad_wanted(args):
    torch = _torch()
    return torch.is_grad_enabled() and any(
        (a._masked_data if isinstance(a, MaskedTensor) else a).requires_grad
        for a in args if isinstance(a, (MaskedTensor, torch.Tensor)))


def _elementwise(fn, args, kwargs, mask):
    torch = _torch()
    raw = [a._masked_data if isinstance(a, MaskedTensor) else a for a in args]
    out = fn(*raw, **kwargs)
    if not _grad_wanted(args) or not out.dtype.is_floating_point:
        return MaskedTensor(out, mask)
    safe = fn(*[_safe(a) if isinstance(a, MaskedTensor) else a for a in args], **kwargs)
    return MaskedTensor(torch.where(mask, safe, out.detach()), mask)


def _reduce(name, args, kwargs):
    torch = _torch()
    from .. import masked as M
    mt = args[0]
    dim = _kwarg(args, kwargs, "dim", 1)
    keepdim = bool(_kwarg(args, kwargs, "keepdim", 2, False))
    dtype = kwargs.get("dtype")
    data, mask = mt._masked_data, mt._masked_mask
    if name == "all":
        filled = torch.where(mask, data.to(torch.bool), torch.full((), True, dtype=torch.bool))
        out = torch.all(filled) if dim is None else torch.all(filled, dim, keepdim=keepdim)
    elif name in ("argmax", "argmin"):
        out = getattr(M, name)(data, dim, keepdim=keepdim, mask=mask)
    else:
        out = getattr(M, name)(data, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    if dim is None:
        out_mask = mask.any()
    else:
        out_mask = mask
        for d in sorted(((x % builtins.max(mask.ndim, 1)) for x in ((dim,) if isinstance(dim, int) else dim)),
                        reverse=True):
            out_mask = out_mask.any(d, keepdim=keepdim)
    return MaskedTensor(out, out_mask)


def _dispatch(name, qualname, args, kwargs, fn):
    """One torch function or Tensor method called with a MaskedTensor among its arguments."""
    torch = _torch()
    fn = getattr(fn, "_msnb_fx_original", fn) if fn is not None else getattr(torch, name, None)
    fn = getattr(fn, "_msnb_fx_original", fn)
    if name in _UNARY and isinstance(args[0], MaskedTensor):
        return _elementwise(fn, args, kwargs, args[0]._masked_mask)
    if name in _BINARY and len(args) >= 2:
        masked = [a for a in args[:2] if isinstance(a, MaskedTensor)]
        for a in args[:2]:
            if not isinstance(a, (MaskedTensor, torch.Tensor, int, float, bool)):
                return NotImplemented
        _masks_must_match([m._masked_mask for m in masked])
        return _elementwise(fn, args, kwargs, masked[0]._masked_mask)
    if name in _REDUCTIONS and isinstance(args[0], MaskedTensor):
        return _reduce(name, args, kwargs)
    if name in _NORMALISE and isinstance(args[0], MaskedTensor):
        from .. import masked as M
        dim = _kwarg(args, kwargs, "dim", 1)
        mt = args[0]
        return MaskedTensor(getattr(M, name)(mt._masked_data, dim, dtype=kwargs.get("dtype"),
                                             mask=mt._masked_mask), mt._masked_mask)
    if name == "where":
        return _where(*args, **kwargs)
    if name in _VIEWS and isinstance(args[0], MaskedTensor):
        mt, rest = args[0], args[1:]
        return MaskedTensor(getattr(mt._masked_data, name)(*rest, **kwargs),
                            getattr(mt._masked_mask, name)(*rest, **kwargs))
    raise NotSupportedError(not_supported_message(f"{qualname} with a MaskedTensor"))


def _where(condition, input, other):
    torch = _torch()
    if isinstance(condition, MaskedTensor):
        raise NotSupportedError(not_supported_message("torch.where with a MaskedTensor condition"))

    def parts(x, like):
        if isinstance(x, MaskedTensor):
            return x, x._masked_data, x._masked_mask
        t = x if isinstance(x, torch.Tensor) else torch.full((), x, dtype=like._masked_data.dtype)
        return None, t, torch.ones(tuple(t.shape), dtype=torch.bool)  # a plain operand is masked-in
    like = input if isinstance(input, MaskedTensor) else other
    a, ad, am = parts(input, like)
    b, bd, bm = parts(other, like)
    data = torch.where(condition, ad, bd)
    if _grad_wanted((input, other)):
        sa = _safe(a) if a is not None else ad
        sb = _safe(b) if b is not None else bd
        data = torch.where(torch.where(condition, am, bm), torch.where(condition, sa, sb), data.detach())
    return MaskedTensor(data, torch.where(condition, am, bm))


def _function(fn, qualname, args, kwargs):
    """The ``fx._hook`` override: torch functions called with a MaskedTensor."""
    name = qualname.rsplit(".", 1)[1]
    out = _dispatch(name, qualname, args, kwargs, fn)
    if out is NotImplemented:
        raise TypeError(f"{qualname}: unsupported operand types for a MaskedTensor")
    return out


_hook.OVERRIDES[MaskedTensor] = _function


def _seq(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def masked_in(*values) -> bool:
    """Whether a MaskedTensor is among ``values`` (each a value or a tuple / list of them)."""
    return bool(_HOOKED) and any(isinstance(v, MaskedTensor) for x in values for v in _seq(x))


def masked_grad(grad, outputs, inputs, grad_outputs, **kwargs):
    """``torch.autograd.grad`` with MaskedTensor outputs / inputs: run on their data; a MaskedTensor input's
    gradient is a MaskedTensor with that input's mask."""
    ins = _seq(inputs)
    data = [x._masked_data if isinstance(x, MaskedTensor) else x for x in ins]
    outs = [x._masked_data if isinstance(x, MaskedTensor) else x for x in _seq(outputs)]
    if grad_outputs is not None:
        grad_outputs = [g.to_tensor(0) if isinstance(g, MaskedTensor) else g for g in _seq(grad_outputs)]
    res = grad(outs, data, grad_outputs, **kwargs)
    return tuple(MaskedTensor(g, i._masked_mask) if isinstance(i, MaskedTensor) and g is not None else g
                 for g, i in zip(res, ins))


def is_masked_tensor(obj) -> bool:
    """msnb implementation of ``torch.masked.is_masked_tensor``."""
    return isinstance(obj, MaskedTensor)


def masked_tensor(data, mask, requires_grad=False):
    """msnb implementation of ``torch.masked.masked_tensor``: a new leaf (data detached and copied)."""
    torch = _torch()
    if isinstance(data, torch.Tensor):
        data = data.detach().clone()
    return MaskedTensor(data, mask, requires_grad=requires_grad)


def as_masked_tensor(data, mask):
    """msnb implementation of ``torch.masked.as_masked_tensor``: keeps ``data``'s autograd history."""
    return MaskedTensor(data, mask)


_hook_once()


def __getattr__(name):
    """PyTorch's ``torch.masked.maskedtensor`` submodules (core, binary, ...) are not separate modules here."""
    raise missing_attribute("torch.masked.maskedtensor", name)
