"""msnb implementation of ``torch.fx._symbolic_trace``: ``symbolic_trace``,
``Tracer`` and ``wrap``.

Tracing calls the module's ``forward`` with Proxies for its inputs.  While it
runs, calls of submodules go through :meth:`Tracer.call_module` (``torch.nn``
modules are leaves: one ``call_module`` node each), parameters read from a
module become ``get_attr`` nodes, and the functions :func:`wrap` registered
are recorded as ``call_function`` nodes instead of being run.
"""

from __future__ import annotations

import builtins
import inspect
import math
from typing import Any, Callable

from .._missing import module_getattr
from . import _hook
from .graph import Graph
from .graph_module import GraphModule
from .proxy import ParameterProxy, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH"]

_SIMPLE = (bool, int, float, str, complex, type(None))


class _PH:
    """``concrete_args`` value that keeps an input a placeholder (PyTorch's ``PH``)."""

    def __repr__(self):
        return "PH"


PH = _PH()
#: (globals dict, name) of every function :func:`wrap` registered
_WRAPPED: list[tuple[dict, str]] = []


def wrap(fn_or_name):
    """Record calls of this module-level function as ``call_function`` nodes rather than tracing through it."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _WRAPPED.append((frame.f_globals, name))
    return fn_or_name


#: ids of the functions recorded through a wrap() registration (their calls print a wrap() line in .code)
_WRAPPED_IDS: set[int] = set()


def is_wrapped(fn) -> bool:
    return id(fn) in _WRAPPED_IDS


def _assert_is_none(value, msg):
    assert value is None, msg


def _recording(orig):
    def wrapped(*args, **kwargs):
        p = _hook.proxy_in(args, kwargs)
        if p is None:
            return orig(*args, **kwargs)
        return p.tracer.create_proxy("call_function", orig, args, kwargs)
    wrapped.__name__ = getattr(orig, "__name__", "wrapped")
    wrapped._msnb_fx_original = orig
    return wrapped


class Tracer(TracerBase):
    """msnb implementation of ``torch.fx.Tracer``."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {id(v) for m in autowrap_modules for v in vars(m).values()
                                       if callable(v) and not isinstance(v, type)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict[int, str] | None = None
        self.root_module_name = ""
        self.tensor_attrs: dict[int, str] = {}

    # --- what becomes a node ------------------------------------------------------
    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        from ..nn import Sequential
        mod = type(m).__module__ or ""
        return (mod.startswith("msnb.adapter.torch.nn") or mod.startswith("torch.nn")) and \
            not isinstance(m, Sequential)

    def path_of_module(self, mod) -> str:
        if self.submodule_paths is None:
            self.submodule_paths = {id(m): n for n, m in self.root.named_modules()}
        path = self.submodule_paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m, forward: Callable, args: tuple, kwargs: dict):
        qualname = self.path_of_module(m)
        key = qualname
        self.module_stack[key] = (qualname, type(m))
        try:
            if not self.is_leaf_module(m, qualname):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", qualname, args, kwargs)
        finally:
            self.module_stack.pop(key, None)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict):
        from ..nn import Parameter
        if isinstance(attr_val, Parameter):
            for n, p in self.root.named_parameters():
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        factory = None
                        if self.param_shapes_constant:  # shape, size(), dim() ... are the parameter's own
                            def factory(node, n=n, p=p):
                                return ParameterProxy(self, node, n, p)
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {}, proxy_factory_fn=factory)
                    return parameter_proxy_cache[n]
        return attr_val

    def create_arg(self, a: Any):
        from .. import Tensor
        from ..nn import Module, Parameter
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Module):
            for n, p in self.root.named_modules():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("module is not installed as a submodule")
        if isinstance(a, Tensor):
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                self.tensor_attrs[id(a)] = qualname
                object.__setattr__(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    # --- the trace ----------------------------------------------------------------------
    def _collect_tensor_attrs(self, root):
        from .. import Tensor
        from ..nn import Parameter
        attrs: dict[int, str] = {}
        for prefix, m in root.named_modules():
            pre = f"{prefix}." if prefix else ""
            for k, v in list(vars(m).items()) + list(m._buffers.items()):
                if isinstance(v, Tensor) and not isinstance(v, Parameter):
                    attrs.setdefault(id(v), pre + k)
        return attrs

    def _placeholders(self, fn, is_module: bool, concrete_args: dict | None):
        concrete_args = dict(concrete_args or {})
        co = fn.__code__
        sig = inspect.signature(fn)
        names = list(co.co_varnames)
        npos, nkw = co.co_argcount, co.co_kwonlyargcount
        pos_names = names[:npos][1 if is_module else 0:]
        kw_names = names[npos:npos + nkw]
        idx = npos + nkw
        star = names[idx] if co.co_flags & inspect.CO_VARARGS else None
        idx += bool(star)
        starstar = names[idx] if co.co_flags & inspect.CO_VARKEYWORDS else None
        annotations = getattr(fn, "__annotations__", {})

        def make(name):
            default = sig.parameters[name].default
            if concrete_args.get(name, None) is PH:
                return self.create_proxy("placeholder", f"{name}_1", (), {})
            if name in concrete_args:
                value = concrete_args[name]
                if isinstance(value, _SIMPLE):
                    ph = self.create_proxy("placeholder", f"{name}_1", (() if default is inspect.Parameter.empty
                                                                       else (default,)), {})
                    msg = f"{name} has been specialized to have value {value} but got another value"
                    if value is None:
                        self.create_proxy("call_function", _assert_is_none, (ph, msg), {})
                    else:
                        from .. import _assert
                        self.create_proxy("call_function", _assert, (ph == value, msg), {})
                return value
            args = () if default is inspect.Parameter.empty else (default,)
            return self.create_proxy("placeholder", name, args, {}, type_expr=annotations.get(name))

        pos = [make(n) for n in pos_names]
        kw = {n: make(n) for n in kw_names}
        if star:
            self.create_proxy("placeholder", "*" + star, (), {})
        if starstar:
            self.create_proxy("placeholder", "**" + starstar, (), {})
        return pos, kw

    def trace(self, root, concrete_args: dict | None = None) -> Graph:
        """Trace ``root`` (a module or a function) into a :class:`Graph`."""
        from ..nn import Module
        if isinstance(root, Module):
            self.root = root
            fn = getattr(type(root), self.traced_func_name)
            self.root_module_name = type(root).__name__
            is_module = True
        else:
            self.root = Module()
            fn = root
            is_module = False
        fn = inspect.unwrap(fn)
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = self._collect_tensor_attrs(self.root)
        self.submodule_paths = None
        parameter_proxy_cache: dict = {}
        tracer = self
        orig_getattr = Module.__getattr__
        orig_call = Module.__call__

        def module_getattr_wrapper(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*a, **k):
                return mod._call_eager(a, k)
            return tracer.call_module(mod, forward, args, kwargs)

        patched = []

        def patch(owner, name, new, is_dict=False):
            if is_dict:
                patched.append((owner, name, owner.get(name, _MISSING)))
                owner[name] = new
            else:
                patched.append((owner, name, vars(owner).get(name, _MISSING)))
                setattr(owner, name, new)

        _hook.acquire()
        self._holds_hook = True
        try:
            patch(Module, "__getattr__", module_getattr_wrapper)
            patch(Module, "__call__", module_call_wrapper)
            for globs, name in _WRAPPED:
                orig = globs.get(name, getattr(builtins, name, None))
                if orig is not None and not hasattr(orig, "_msnb_fx_original"):
                    _WRAPPED_IDS.add(id(orig))
                    patch(globs, name, _recording(orig), is_dict=True)
            globs = getattr(fn, "__globals__", {})
            for name, value in list(globs.items()):
                if id(value) in self._autowrap_function_ids and not hasattr(value, "_msnb_fx_original"):
                    patch(globs, name, _recording(value), is_dict=True)
            pos, kw = self._placeholders(fn, is_module, concrete_args)
            args = [root, *pos] if is_module else pos
            result = fn(*args, **kw)
            self.create_node("output", "output", (self.create_arg(result),), {},
                             type_expr=getattr(fn, "__annotations__", {}).get("return"))
        finally:
            for owner, name, old in reversed(patched):
                if isinstance(owner, dict):
                    if old is _MISSING:
                        owner.pop(name, None)
                    else:
                        owner[name] = old
                elif old is _MISSING:
                    delattr(owner, name)
                else:
                    setattr(owner, name, old)
            self._holds_hook = False
            _hook.release()
        self.submodule_paths = None
        return self.graph


_MISSING = object()


def symbolic_trace(root, concrete_args: dict | None = None) -> GraphModule:
    """Trace ``root`` (an ``nn.Module`` or a function) and return the :class:`GraphModule` of its graph."""
    from ..nn import Module
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


__getattr__ = module_getattr("torch.fx._symbolic_trace")
