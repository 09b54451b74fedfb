"""msnb implementation of ``torch.library``'s Python custom operators:
``custom_op`` (the op runs the decorated Python function, below autograd),
``register_autograd`` (its backward), ``register_fake`` and
``register_kernel``; registered ops are reachable as
``torch.ops.<namespace>.<name>``.

msnb traces no fake tensors, so a ``register_fake`` function is kept (and
returned) but never needs to run."""

from __future__ import annotations

import functools
import inspect

from .._missing import NotSupportedError, not_supported_message
from ._builtin_ops import BUILTIN

__all__ = ["custom_op", "CustomOpDef", "register_autograd", "register_fake", "register_kernel", "ops"]

#: "ns::name" -> CustomOpDef
_OPS: dict = {}

_TYPE_NAMES = {float: "float", int: "int", bool: "bool", str: "str"}


def _schema_type(ann):
    from .._tensor import Tensor
    if ann is Tensor or getattr(ann, "__name__", None) == "Tensor":
        return "Tensor"
    if ann in _TYPE_NAMES:
        return _TYPE_NAMES[ann]
    return None


class CustomOpDef:
    """A custom operator: ``op(*args)`` runs it; ``register_*`` attach its parts."""

    def __init__(self, namespace, name, fn, mutates_args):
        self._namespace, self._name, self._fn = namespace, name, fn
        self._mutates = mutates_args
        self._sig = inspect.signature(fn)
        self._backward = self._setup = self._fake = None
        self._kernels = {}
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    def register_fake(self, fn=None, /):
        def reg(f):
            self._fake = f
            return f
        return reg if fn is None else reg(fn)

    def register_kernel(self, device_types, fn=None, /):
        types = (device_types,) if isinstance(device_types, str) or device_types is None else tuple(device_types)

        def reg(f):
            for t in types:
                self._kernels[t] = f
            return f
        return reg if fn is None else reg(fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        self._backward = backward
        self._setup = setup_context

    def _check_args(self, bound):
        from .._tensor import Tensor
        for i, (p, v) in enumerate(bound.arguments.items()):
            kind = _schema_type(self._sig.parameters[p].annotation)
            ok = {"Tensor": isinstance(v, Tensor), "float": isinstance(v, (int, float)) and not isinstance(v, bool),
                  "int": isinstance(v, int) and not isinstance(v, bool), "bool": isinstance(v, bool),
                  "str": isinstance(v, str)}.get(kind, True)
            if not ok:
                raise RuntimeError(f"{self._qualname}() Expected a value of type '{kind}' for argument '{p}' but "
                                   f"instead found type '{type(v).__name__}'.")

    def __call__(self, *args, **kwargs):
        from .._tensor import Tensor
        from ..autograd.function import FunctionCtx
        from ..autograd.grad_mode import STATE, no_grad
        from ..autograd.graph import record
        bound = self._sig.bind(*args, **kwargs)
        bound.apply_defaults()
        self._check_args(bound)
        kernel = self._kernels.get("cpu") or self._kernels.get(None) or self._fn
        with no_grad():
            out = kernel(*bound.args, **bound.kwargs)
        tensors_in = [v for v in bound.arguments.values() if isinstance(v, Tensor)]
        outs = out if isinstance(out, tuple) else (out,)
        for o in outs:
            if isinstance(o, Tensor) and any(o is t for t in tensors_in):
                raise RuntimeError(f"{self._name}: The output of this custom operator (1) must not also be an "
                                   "input to this custom operator and (2) may not alias any inputs to this custom "
                                   "operator or other returns. The most common way to trigger this error is if we "
                                   "have y = custom_op(x) and y and x are the same Tensor. Please instead return a "
                                   "clone of the offending output tensor(s) (e.g. return x.clone()) or refactor "
                                   "the custom operator to not return y.")
        if not (STATE.enabled and any(t.requires_grad for t in tensors_in)):
            return out
        diff_out = [o for o in outs if isinstance(o, Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex)]
        if not diff_out:
            return out
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(v, Tensor) and v.requires_grad for v in bound.arguments.values())
        if self._setup is not None:
            self._setup(ctx, tuple(bound.arguments.values()), out)
        params = list(bound.arguments.values())
        backward, qual = self._backward, f"{self._namespace}.{self._name}.default"

        def run_backward(*grads):
            if backward is None:
                raise RuntimeError(f"Trying to backward through {qual} but no autograd formula was registered. "
                                   "Please use register_autograd to add one.")
            res = backward(ctx, *grads)
            res = res if isinstance(res, tuple) else (res,)
            if len(res) != len(params):
                raise RuntimeError(f"{self._qualname}: expected the backward function to return {len(params)} "
                                   f"gradients (one per input), got {len(res)}")
            return tuple(g for g, v in zip(res, params) if isinstance(v, Tensor))

        name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_defaultBackward"
        outputs = tuple(o if o in diff_out else None for o in outs) if isinstance(out, tuple) else out
        record(name, outputs, tensors_in, run_backward)
        return out


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """msnb implementation of ``torch.library.custom_op``."""
    def make(f):
        sig = inspect.signature(f)
        for p in list(sig.parameters.values()) + [None]:
            ann = sig.return_annotation if p is None else p.annotation
            if isinstance(ann, str):  # ``from __future__ import annotations``: resolved as PyTorch does
                try:
                    eval(ann, f.__globals__)  # noqa: S307 - the user's own annotation text
                except Exception:  # noqa: BLE001
                    raise ValueError(f"infer_schema(func): Unsupported type annotation {ann}. It is not a type. "
                                     f"Got func with signature {sig})") from None
        for p in sig.parameters.values():
            if p.annotation is inspect.Parameter.empty:
                raise ValueError(f"infer_schema(func): Parameter {p.name} must have a type annotation. Got func "
                                 f"with signature {sig})")
        if sig.return_annotation is inspect.Signature.empty:
            raise ValueError(f"infer_schema(func): No return type annotation was provided. Got func with "
                             f"signature {sig})")
        if "::" not in name:
            raise ValueError(f"Expected there to be a namespace in {name}, i.e. The operator name should look "
                             "something like ns::foo")
        ns, _, opname = name.partition("::")
        op = CustomOpDef(ns, opname, f, mutates_args)
        if device_types is not None:
            op.register_kernel(device_types, f)
        _OPS[name] = op
        return op

    if schema is not None:
        raise NotSupportedError(not_supported_message("torch.library.custom_op(schema=...)"))
    return make if fn is None else make(fn)


def _op(name):
    if isinstance(name, CustomOpDef):
        return name
    op = _OPS.get(name)
    if op is None:
        raise NotSupportedError(not_supported_message(f"torch.library operator {name!r} (only ops made with "
                                                      "torch.library.custom_op)"))
    return op


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    _op(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    return _op(op).register_fake(func)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    return _op(op).register_kernel(device_types, func)


class _Namespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, name):
        op = _OPS.get(f"{self._ns}::{name}") or BUILTIN.get(f"{self._ns}::{name}")
        if op is None:
            raise NotSupportedError(not_supported_message(f"torch.ops.{self._ns}.{name}"))
        return op


class _Ops:
    """``torch.ops``: the operators made with ``torch.library.custom_op``, and the built-in
    ones of ``_builtin_ops`` (``torch.ops.profiler._record_function_enter`` ...)."""

    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        return _Namespace(ns)


ops = _Ops()

from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.library")
