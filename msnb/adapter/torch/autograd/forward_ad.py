"""msnb implementation of ``torch.autograd.forward_ad``: dual tensors whose
tangents are computed when unpacked, by the double-vjp construction over
msnb's reverse-mode tape (see :mod:`msnb.adapter.torch.func._transforms`).

A dual tensor is a tensor msnb's autograd tracks (``requires_grad`` is True
on it, unlike PyTorch's).  Tangents flow only through what that tape
records: if grad recording is turned off inside a dual level (``no_grad``,
also msnb-internal, e.g. BatchNorm's running-stat update) ``unpack_dual``
raises msnb's NotSupportedError instead of returning a tangent that could
miss a term."""

from __future__ import annotations

from typing import NamedTuple

from .._missing import NotSupportedError, not_supported_message
from .._tensor import Tensor
from . import grad_mode

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

#: open levels, innermost last: each a list of (dual tensor, tangent)
_LEVELS: list = []


class UnpackedDualTensor(NamedTuple):
    """``(primal, tangent)`` of a dual tensor."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level():
    """Open a new forward-AD level and return its index."""
    _LEVELS.append({"duals": [], "grad_off": grad_mode.GRAD_OFF_SEEN[0]})
    grad_mode.FORWARD_AD_LEVELS[0] = len(_LEVELS)
    return len(_LEVELS) - 1


def exit_dual_level(*, level=None):
    """Close the innermost level (its dual tensors lose their tangents)."""
    if not _LEVELS:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    if level is not None and level != len(_LEVELS) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _LEVELS.pop()
    grad_mode.FORWARD_AD_LEVELS[0] = len(_LEVELS)


class dual_level:  # noqa: N801 - PyTorch's spelling
    """A context manager inside which dual tensors live."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _level(level, what):
    if not _LEVELS:
        raise RuntimeError(f"Trying to {what} for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if level is not None and level != len(_LEVELS) - 1:
        raise NotSupportedError(not_supported_message("torch.autograd.forward_ad with a level other than the "
                                                      "innermost"))
    return _LEVELS[-1]


def make_dual(tensor, tangent, *, level=None):
    """A tensor equal to ``tensor`` that carries ``tangent`` as its forward gradient."""
    lv = _level(level, "create a dual Tensor")
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.dtype.is_floating_point or tangent.dtype.is_complex):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    with grad_mode.enable_grad():
        dual = tensor.clone() if tensor.requires_grad else tensor.detach().requires_grad_(True)
    lv["duals"].append((dual, _tangent_as_kept(tensor, tangent)))
    return dual


def _tangent_as_kept(primal, tangent):
    """PyTorch keeps the tangent object itself when its layout (strides) is the primal's, and a
    copy in the primal's layout otherwise: ``unpack_dual(d).tangent is tangent`` holds exactly
    then.  A tangent that requires grad is kept detached (msnb's forward AD is not differentiable)."""
    if tangent.requires_grad:
        return tangent.detach()
    if tangent.is_contiguous() == primal.is_contiguous() and tuple(tangent.stride()) == tuple(primal.stride()):
        return tangent
    return tangent.contiguous() if primal.is_contiguous() else tangent.clone()


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``; the tangent is None for a tensor no dual tensor reaches."""
    from ..func._transforms import Unwrapper, _reaches, forward_products
    if not _LEVELS:
        return UnpackedDualTensor(tensor, None)
    lv = _level(level, "unpack a dual Tensor")
    duals = lv["duals"]
    for d, t in duals:
        if d is tensor:
            return UnpackedDualTensor(_primal(tensor, duals), t)
    if grad_mode.GRAD_OFF_SEEN[0] != lv["grad_off"]:
        raise NotSupportedError(not_supported_message(
            "torch.autograd.forward_ad through code run with grad recording off (torch.no_grad, or msnb-internal "
            "in-place updates such as BatchNorm's running statistics) inside dual_level"))
    if not tensor.requires_grad or not duals or not _reaches(
            tensor, {id(d) for d, _ in duals}, {id(d._grad_fn) for d, _ in duals if d._grad_fn is not None}):
        return UnpackedDualTensor(tensor, None)
    with grad_mode.enable_grad():
        (row,) = forward_products([tensor], [d for d, _ in duals], [[t for _, t in duals]])
    own = {id(d) for d, _ in duals if d._grad_fn is None}
    return UnpackedDualTensor(_primal(tensor, duals), Unwrapper(own, grad_mode.STATE.enabled)(row[0]))


def tangents_into(args):
    """Each argument's tangent at the innermost level (zeros for a tensor no dual reaches, None for a
    non-tensor), or None when no argument carries one: a custom Function's ``jvp`` receives them."""
    from .._ops.creation import zeros_like
    if not _LEVELS or not _LEVELS[-1]["duals"]:
        return None
    found, out = False, []
    for a in args:
        if not isinstance(a, Tensor):
            out.append(None)
            continue
        t = unpack_dual(a).tangent
        found = found or t is not None
        out.append(t if t is not None else zeros_like(a.detach()))
    return out if found else None


def apply_with_jvp(cls, args, kwargs, tangents):
    """``cls.apply(*args)`` for a custom Function some of whose inputs are dual tensors: forward runs
    with grad recording off, as always (the count of grad-off blocks forward AD watches is left as
    it was: the tangent comes from the Function's own ``jvp``, not from what forward computes), and
    each output becomes a dual tensor whose tangent is what ``jvp(ctx, *input_tangents)`` returns.

    Partial: the outputs carry no reverse-mode node (PyTorch records one when an input requires
    grad outside forward AD as well)."""
    from .function import Function, FunctionCtx
    if getattr(cls, "jvp", Function.jvp) is Function.jvp:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")
    lv = _LEVELS[-1]
    primals = [_primal(a, lv["duals"]) if isinstance(a, Tensor) else a for a in args]
    ctx = FunctionCtx()
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    seen = grad_mode.GRAD_OFF_SEEN[0]
    try:
        with grad_mode.no_grad():
            if cls.setup_context is not Function.setup_context:
                out = cls.forward(*primals, **kwargs)
                cls.setup_context(ctx, tuple(primals), out)
            else:
                out = cls.forward(ctx, *primals, **kwargs)
            tan = cls.jvp(ctx, *tangents)
    finally:
        grad_mode.GRAD_OFF_SEEN[0] = seen
    multi = isinstance(out, tuple)
    outs, tans = (list(out), list(tan) if isinstance(tan, tuple) else [tan]) if multi else ([out], [tan])
    if len(tans) != len(outs):
        raise RuntimeError(f"{cls.__name__}.jvp returned an incorrect number of tangents (expected {len(outs)}, "
                           f"got {len(tans)})")
    res = []
    for o, t in zip(outs, tans):
        if isinstance(o, Tensor) and t is not None and id(o) not in ctx._non_diff:
            if tuple(t.shape) != tuple(o.shape):
                raise RuntimeError(f"Function {cls.__name__}.jvp returned an invalid tangent: expected shape "
                                   f"{list(o.shape)} but got {list(t.shape)}")
            with grad_mode.enable_grad():
                o = o.detach().requires_grad_(True)
            lv["duals"].append((o, t.detach() if t.requires_grad else t))
        res.append(o)
    return tuple(res) if multi else res[0]


def _primal(t, duals):
    from ..func._transforms import Unwrapper
    own = {id(d) for d, _ in duals if d._grad_fn is None}
    return Unwrapper(own, grad_mode.STATE.enabled)(t)


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.autograd.forward_ad")
