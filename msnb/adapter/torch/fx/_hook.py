"""How ``torch.*`` functions called with a Proxy record a node (msnb's
``__torch_function__``).

PyTorch routes every torch function through ``__torch_function__`` when an
argument is a Proxy.  msnb's functions are plain Python, so while at least one
:class:`~torch.fx.Proxy` is alive (or a trace runs) the public functions of
``torch``, ``torch.nn.functional``, ``torch.linalg``, ``torch.special`` and
``torch.fft`` and the functional forms the ``torch.nn`` modules hold are
replaced by wrappers that record a ``call_function`` node when a Proxy is
among the arguments and call the original otherwise; the binary operators of
``torch.Tensor`` record ``tensor <op> proxy`` as PyTorch does (a
``call_method`` node).  When the last Proxy is gone the originals are put back,
so code that never makes a Proxy runs exactly the functions it always ran
(no check, no cost).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import threading
import types

__all__ = ["acquire", "release", "active", "qualified_name_of", "proxy_in", "OVERRIDES"]

#: adapter namespaces whose functions are wrapped, in the order their names are preferred
_NAMESPACES = (("torch", "msnb.adapter.torch"), ("torch.nn.functional", "msnb.adapter.torch.nn.functional"),
               ("torch.linalg", "msnb.adapter.torch.linalg"), ("torch.special", "msnb.adapter.torch.special"),
               ("torch.fft", "msnb.adapter.torch.fft"))
#: functions that look at the Python object itself rather than compute on it (PyTorch does not trace them)
_NOT_TRACED = {"is_tensor", "is_storage", "compile", "save", "load", "cast_to_adapter_tensor", "cast_to_ms_tensor",
               "set_printoptions", "typename", "get_default_dtype", "set_default_dtype", "manual_seed", "vmap"}
#: ``tensor <op> proxy``: the ``torch.Tensor`` operator and the method call PyTorch records for it
_TENSOR_OPERATORS = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "__rsub__", "__mul__": "mul",
                     "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "__rdiv__",
                     "__floordiv__": "__floordiv__", "__rfloordiv__": "__rfloordiv__", "__mod__": "remainder",
                     "__rmod__": "__rmod__", "__pow__": "pow", "__rpow__": "__rpow__", "__matmul__": "matmul",
                     "__rmatmul__": "__rmatmul__", "__and__": "__and__", "__rand__": "bitwise_and",
                     "__or__": "__or__", "__ror__": "bitwise_or", "__xor__": "__xor__", "__rxor__": "bitwise_xor",
                     "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__eq__": "eq", "__ne__": "ne"}
#: ``torch.nn.functional`` names that are C functions in PyTorch: recorded with the arguments as given
_F_AS_GIVEN = {"adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_", "channel_shuffle",
               "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
               "cosine_similarity", "elu_", "gelu", "hardshrink", "hardtanh_", "leaky_relu_", "linear", "logsigmoid",
               "native_channel_shuffle", "one_hot", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
               "prelu", "relu_", "rrelu_", "scaled_dot_product_attention", "softplus", "softshrink", "threshold_"}
#: ``torch.nn.functional`` names PyTorch implements as a Tensor method call
_F_AS_METHOD = {"tanh", "sigmoid"}

_lock = threading.RLock()
_count = 0
_patches: list | None = None  # (owner, attribute, original, replacement)
_qualnames: dict[int, str] | None = None
_PROXY = None  # torch.fx.Proxy, set by proxy.py
#: other argument types that take a torch function over while one is alive (``torch.nested``'s NestedTensor
#: holds the wrappers in place with acquire / release): ``type -> handler(function, qualified name, args, kwargs)``
OVERRIDES: dict = {}


def _override_in(args, kwargs):
    for values in (args, kwargs.values()):
        for a in values:
            h = OVERRIDES.get(type(a))
            if h is not None:
                return h
            if type(a) in (list, tuple):
                for b in a:
                    h = OVERRIDES.get(type(b))
                    if h is not None:
                        return h
    return None


def proxy_in(args, kwargs):
    """The first Proxy among ``args`` / ``kwargs`` (looking one level into lists and tuples), or None."""
    P = _PROXY
    for values in (args, kwargs.values()):
        for a in values:
            if isinstance(a, P):
                return a
            if type(a) in (list, tuple):
                for b in a:
                    if isinstance(b, P):
                        return b
    return None


def _python_functional_args(sig, args, kwargs):
    """PyTorch's Python ``torch.nn.functional`` functions record their required
    parameters positionally and every other parameter, defaults filled in, by keyword."""
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    pos, kw = [], {}
    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        value = bound.arguments[name]
        if param.default is param.empty and param.kind != param.KEYWORD_ONLY:
            pos.append(value)
        else:
            kw[name] = value
    return tuple(pos), kw


def _wrap_function(orig, ns=None, name=None):
    style = "given"
    sig = None
    if ns == "torch.nn.functional" and name not in _F_AS_GIVEN:
        style = "method" if name in _F_AS_METHOD else "python"
        try:
            sig = inspect.signature(orig)
        except (TypeError, ValueError):
            style = "given"

    def traced(*args, **kwargs):
        p = proxy_in(args, kwargs)
        if p is None:
            h = _override_in(args, kwargs) if OVERRIDES else None
            if h is not None:
                return h(orig, f"{ns}.{name}", args, kwargs)
            return orig(*args, **kwargs)
        if style == "method":
            return p.tracer.create_proxy("call_method", name, args, kwargs)
        if style == "python":
            args, kwargs = _python_functional_args(sig, args, kwargs)
        return p.tracer.create_proxy("call_function", orig, args, kwargs)
    functools.update_wrapper(traced, orig)
    traced._msnb_fx_original = orig
    return traced


def _wrap_operator(orig, method):
    def op(self, other):
        if isinstance(other, _PROXY):
            return other.tracer.create_proxy("call_method", method, (self, other), {})
        if type(other) in OVERRIDES:
            return NotImplemented  # ``tensor + nested``: the nested tensor's reflected operator answers
        return orig(self, other)
    functools.update_wrapper(op, orig)
    return op


def _is_function(obj) -> bool:
    return isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)) and \
        str(getattr(obj, "__module__", "") or "").startswith("msnb.")


def _build():
    global _patches, _qualnames
    patches, qual, wrappers = [], {}, {}
    for ns, modname in _NAMESPACES:
        mod = importlib.import_module(modname)
        for name, obj in list(vars(mod).items()):
            if name.startswith("__") or name in _NOT_TRACED or not _is_function(obj):
                continue
            if name.startswith("_") and name != "_assert":
                continue
            qual.setdefault(id(obj), f"{ns}.{name}")
            w = wrappers.get(id(obj))
            if w is None:
                w = wrappers[id(obj)] = _wrap_function(obj, ns, name)
            patches.append((mod, name, obj, w))
    from ..nn import Module
    from .. import Tensor
    seen = set()
    stack = [Module]
    while stack:  # the functional forms nn modules keep as ``_fn`` (ReLU, Dropout, MaxPool2d ...)
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
        fn = vars(cls).get("_fn")
        if isinstance(fn, staticmethod) and id(fn.__func__) in wrappers:
            patches.append((cls, "_fn", fn, staticmethod(wrappers[id(fn.__func__)])))
    for name, method in _TENSOR_OPERATORS.items():
        orig = vars(Tensor).get(name)
        if orig is not None:
            patches.append((Tensor, name, orig, _wrap_operator(orig, method)))
    _patches, _qualnames = patches, qual


def qualified_name_of(fn) -> str | None:
    """``torch.relu`` / ``torch.nn.functional.relu`` ... for an adapter function, else None."""
    if _qualnames is None:
        with _lock:
            if _qualnames is None:
                _build()
    fn = getattr(fn, "_msnb_fx_original", fn)
    return _qualnames.get(id(fn))


def acquire() -> None:
    """One more Proxy (or trace) alive: the wrappers are in place while any is."""
    global _count
    with _lock:
        if _count == 0:
            if _patches is None:
                _build()
            for owner, name, _orig, new in _patches:
                setattr(owner, name, new)
        _count += 1


def release() -> None:
    global _count
    with _lock:
        _count -= 1
        if _count == 0:
            for owner, name, orig, _new in _patches:
                setattr(owner, name, orig)


def active() -> bool:
    return _count > 0
