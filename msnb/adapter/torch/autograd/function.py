"""``torch.autograd.Function``: user-defined forward and backward.

``apply`` runs ``forward`` with grad recording off, then records one node
whose backward calls the user's ``backward`` with the context."""

from __future__ import annotations

from . import grad_mode
from .grad_mode import STATE, no_grad
from .graph import record

__all__ = ["Function", "FunctionCtx", "once_differentiable", "TRANSFORMS"]

#: ``{"grad": n, "vmap": n}``: torch.func transforms now running (their rules for custom Functions)
TRANSFORMS = {"grad": 0, "vmap": 0}


def _check_transforms(cls):
    if TRANSFORMS["grad"] or TRANSFORMS["vmap"]:
        if cls.setup_context is Function.setup_context:
            raise RuntimeError("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
                               "jacrev, ...), it must override the setup_context staticmethod. For more details, "
                               "please see https://pytorch.org/docs/main/notes/extending.func.html")
    if TRANSFORMS["vmap"] and not getattr(cls, "generate_vmap_rule", False) and "vmap" not in vars(cls):
        raise RuntimeError(f"To use autograd.Function with vmap, you must either override the vmap staticmethod "
                           f"or set generate_vmap_rule=True. Got autograd.Function {cls.__name__}.")


class FunctionCtx:
    """The ``ctx`` a custom Function's forward and backward receive."""

    def __init__(self):
        self._saved = ()
        self._unpack = None  # the unpack hook when saved_tensors_hooks packed what forward saved
        self._records = False
        self.needs_input_grad = ()
        self._non_diff = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        from .graph import _SAVED_HOOKS
        from .grad_mode import no_grad
        from .._tensor import Tensor
        if _SAVED_HOOKS and self._records:
            pack, self._unpack = _SAVED_HOOKS[-1]
            with no_grad():
                self._saved = tuple((pack(t), t.requires_grad) if isinstance(t, Tensor) else t for t in tensors)
            self._packed_kinds = tuple(isinstance(t, Tensor) for t in tensors)
        else:
            self._saved, self._unpack = tuple(tensors), None

    @property
    def saved_tensors(self):
        """What forward saved; under saved_tensors_hooks each access unpacks again (as PyTorch does)."""
        if self._unpack is None:
            return self._saved
        from .graph import unpack_saved
        return tuple(unpack_saved(self._unpack, *v) if k else v for v, k in zip(self._saved, self._packed_kinds))

    @property
    def saved_variables(self):  # the old spelling, used by the seed's GdnFunction
        return self.saved_tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class _FunctionMeta(type):
    pass


class Function(metaclass=_FunctionMeta):
    """msnb implementation of ``torch.autograd.Function`` (static forward/backward)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        return None

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor
        from .._core import wrap, K

        _check_transforms(cls)
        from . import forward_ad
        duals = forward_ad.tangents_into(args) if grad_mode.FORWARD_AD_LEVELS[0] else None
        if duals is not None:
            return forward_ad.apply_with_jvp(cls, args, kwargs, duals)
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._records = STATE.enabled and any(ctx.needs_input_grad)  # saved tensors are packed only then
        seen = grad_mode.GRAD_OFF_SEEN[0]  # no input is a dual tensor: forward's no-grad block carries no tangent
        with no_grad():
            if cls.setup_context is not Function.setup_context:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        grad_mode.GRAD_OFF_SEEN[0] = seen
        if not (STATE.enabled and any(ctx.needs_input_grad)):
            return out
        multi = isinstance(out, tuple)
        outs = list(out) if multi else [out]
        # outputs that are inputs must become distinct tensors to carry the new node
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and any(o is a for a in args):
                outs[i] = wrap(K.identity(o))
        diff = [o if isinstance(o, Tensor) and id(o) not in ctx._non_diff else None for o in outs]
        shapes = [(tuple(o.shape), o.dtype) if o is not None else None for o in diff]

        def bw(*grads):
            from .._ops.creation import zeros
            gs = []
            for g, meta in zip(grads, shapes):
                if g is None and ctx.materialize_grads and meta is not None:
                    g = zeros(meta[0], dtype=meta[1])
                gs.append(g)
            res = cls.backward(ctx, *gs)
            if not isinstance(res, tuple):
                res = (res,)
            if len(res) < len(args):
                raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of "
                                   f"gradients (expected {len(args)}, got {len(res)})")
            return tuple(r if isinstance(a, Tensor) else None for r, a in zip(res, args))

        record(cls.__name__ + "Backward", diff if multi else diff[0], args, bw)
        return tuple(outs) if multi else outs[0]


def once_differentiable(fn):
    return fn
