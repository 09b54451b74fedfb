"""Operators PyTorch registers in C++ that public programs call through
``torch.ops.<namespace>.<name>``, for the namespaces msnb implements.

An op is an :class:`OpPacket`: called with tensors it runs eagerly; called
with a ``torch.fx.Proxy`` among its arguments it records a ``call_function``
node whose target is the op itself, as PyTorch's ``OpOverloadPacket`` does
through ``__torch_function__`` (pytorch/examples' fx ``profiling_tracer``
puts profiler ranges into traced graphs this way).  The generated code names
it ``torch.ops.<namespace>.<name>(...)``, as PyTorch's does.

``profiler::_record_function_enter`` / ``_record_function_enter_new`` open a
``record_function`` range in every recording profile and return its handle;
``profiler::_record_function_exit`` closes it.  PyTorch's handle is a uint8
tensor (``_enter``) or a ``ScriptObject`` (``_enter_new``) meant only for
``_exit``; msnb's is one opaque handle type for both.  A wrong argument type
raises ``RuntimeError`` as PyTorch's schema check does.
"""

from __future__ import annotations

__all__ = ["OpPacket", "BUILTIN"]


class OpPacket:
    """One ``torch.ops.<ns>.<name>`` operator (see the module docstring)."""

    def __init__(self, ns, name, fn):
        self._ns, self._name, self._fn = ns, name, fn
        self.__name__ = self.__qualname__ = name
        self.__module__ = f"torch.ops.{ns}"
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        from ..fx import _hook
        p = _hook.proxy_in(args, kwargs)
        if p is not None:
            return p.tracer.create_proxy("call_function", self, args, kwargs)
        return self._fn(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __str__(self):
        return f"{self._ns}.{self._name}"

    def __reduce__(self):  # a pickled graph names the op, as PyTorch's packet pickles by name
        return (_lookup, (self._ns, self._name))


def _lookup(ns, name):
    return BUILTIN[f"{ns}::{name}"]


class _RecordFunctionHandle:
    """The open range ``_record_function_enter`` returns, for ``_record_function_exit``."""

    __slots__ = ("range", "closed")

    def __init__(self, rng):
        self.range = rng
        self.closed = False

    def __repr__(self):
        return f"<record_function handle {self.range.name!r}>"


def _schema_error(op, arg, expected, value):
    return RuntimeError(f"profiler::{op}() Expected a value of type '{expected}' for argument '{arg}' but instead "
                        f"found type '{type(value).__name__}'.")


def _record_function_enter(name, args=None):
    """Open a ``record_function(name, args)`` range; returns its handle."""
    from ..autograd.profiler import record_function
    if not isinstance(name, str):
        raise _schema_error("_record_function_enter", "name", "str", name)
    if args is not None and not isinstance(args, str):
        raise _schema_error("_record_function_enter", "args", "Optional[str]", args)
    rng = record_function(name, args)
    rng.__enter__()
    return _RecordFunctionHandle(rng)


def _record_function_exit(handle):
    """Close the range ``handle`` names (once: a second exit does nothing)."""
    if not isinstance(handle, _RecordFunctionHandle):
        raise _schema_error("_record_function_exit", "handle", "Tensor", handle)
    if not handle.closed:
        handle.closed = True
        handle.range.__exit__(None, None, None)


BUILTIN = {f"profiler::{n}": OpPacket("profiler", n, f) for n, f in (
    ("_record_function_enter", _record_function_enter),
    ("_record_function_enter_new", _record_function_enter),
    ("_record_function_exit", _record_function_exit))}
