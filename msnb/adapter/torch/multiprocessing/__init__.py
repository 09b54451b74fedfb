"""msnb implementation of ``torch.multiprocessing``: Python's ``multiprocessing`` for torch on MindSpore.

As in PyTorch, the API is the standard module's (``Process``, ``Queue``,
``Pool``, ``get_context`` ...), with two differences that carry the
PyTorch semantics:

* tensors sent to another process (``Process`` arguments, ``Queue.put``)
  move to shared memory and arrive as tensors over the same memory, so
  Hogwild updates are seen by every process (see :mod:`.reductions`);
* every child is a fresh interpreter running torch on MindSpore with the
  parent's mode, AMP level and device (see :mod:`._context`): MindSpore
  cannot run in a forked child, so ``fork`` and ``forkserver`` start
  processes the way ``spawn`` does, and the target must be picklable.

This module's contexts are its own: ``set_start_method`` here does not
change the standard ``multiprocessing`` module's default.
"""

from __future__ import annotations

import inspect as _inspect
import multiprocessing as _mp
from multiprocessing import AuthenticationError, BufferTooShort, ProcessError, TimeoutError, reducer  # noqa: F401

from ._context import MsnbContext, MsnbProcess, context_for
from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException, SpawnContext,  # noqa: F401
                    spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn",
           "start_processes", "ProcessContext", "SpawnContext", "ProcessRaisedException",
           "ProcessExitedException", "set_start_method", "get_start_method", "get_context",
           "get_all_start_methods", "Process", "AuthenticationError", "BufferTooShort", "ProcessError",
           "TimeoutError", "reducer"]

init_reductions()

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]
_default: list[str | None] = [None]


def set_sharing_strategy(new_strategy) -> None:
    """Accepted for PyTorch's two names; msnb shares through named shared-memory segments either way."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_STRATEGIES}")
    _strategy[0] = new_strategy


def get_sharing_strategy() -> str:
    return _strategy[0]


def get_all_sharing_strategies() -> set:
    return set(_STRATEGIES)


def set_start_method(method, force: bool = False) -> None:
    """Choose this module's default start method (every method starts a fresh msnb process)."""
    if _default[0] is not None and not force:
        raise RuntimeError("context has already been set")
    if method is not None:
        context_for(method)
    _default[0] = method


def get_start_method(allow_none: bool = False):
    if _default[0] is None and not allow_none:
        _default[0] = "fork" if "fork" in _mp.get_all_start_methods() else "spawn"  # Python's default here
    return _default[0]


def get_context(method=None) -> MsnbContext:
    return context_for(method if method is not None else get_start_method())


def get_all_start_methods() -> list:
    return list(_mp.get_all_start_methods())


class Process(MsnbProcess):
    """``torch.multiprocessing.Process``: a child running torch on MindSpore (subclass it or pass ``target``)."""

_FROM_CONTEXT = ("Array", "Barrier", "BoundedSemaphore", "Condition", "Event", "JoinableQueue", "Lock", "Manager",
                 "Pipe", "Pool", "Queue", "RLock", "RawArray", "RawValue", "Semaphore", "SimpleQueue", "Value",
                 "active_children", "allow_connection_pickling", "cpu_count", "current_process",
                 "freeze_support", "get_logger", "log_to_stderr", "parent_process", "set_executable",
                 "set_forkserver_preload")


def _bound(name):
    def call(*args, **kwargs):
        return getattr(get_context(), name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``multiprocessing.{name}`` on this module's context (children run torch on MindSpore)."
    call.__signature__ = _inspect.signature(getattr(_mp.get_context(), name))  # the standard module's parameters
    return call


for _name in _FROM_CONTEXT:
    globals()[_name] = _bound(_name)
    __all__.append(_name)
del _name


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.multiprocessing")
