"""msnb implementation of ``torch.futures``: a thread-safe ``Future`` with
PyTorch's callback and error rules, ``collect_all`` and ``wait_all``.

The RPC layer (``torch.distributed.rpc.rpc_async``) completes these futures
from its reader threads; user code can make and complete them too.

PyTorch's rules kept here (checked against torch 2.13 in the tests):

- a future completes once: a second ``set_result`` / ``set_exception`` raises
  ``RuntimeError``;
- ``wait()`` / ``value()`` of a future completed by ``set_exception`` raise
  that exception itself;
- an exception raised inside a ``then`` callback completes the child future
  with a ``RuntimeError`` "Got the following error when running the callback:
  <Type>: <message>" followed by the traceback;
- an exception raised by an ``add_done_callback`` callback is printed and
  dropped (PyTorch logs it);
- ``collect_all`` completes when every future has; its value is the list of
  futures, and ``wait()`` raises the first error among them.
"""

from __future__ import annotations

import sys
import threading
import traceback
from typing import Any, Callable, Generic, TypeVar

from ._gate import GATE

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


def _callback_error(exc: BaseException) -> RuntimeError:
    """PyTorch's wrapping of an exception raised by a ``then`` callback."""
    frames = traceback.extract_tb(exc.__traceback__)
    at = "".join(f"  {f.filename}({f.lineno}): {f.name}\n" for f in reversed(frames))
    return RuntimeError(f"Got the following error when running the callback: {type(exc).__name__}: {exc}\n\n"
                        f"At:\n{at}")


class Future(Generic[T]):
    """msnb implementation of ``torch.futures.Future`` (``torch.jit.Future``)."""

    def __init__(self, *, devices=None):
        for d in devices or ():
            name = str(d)
            if name.startswith(("cuda", "npu", "xpu", "mps")):
                raise RuntimeError(f"PyTorch is not linked with support for {name.split(':')[0]} devices")
            if ":" not in name:
                raise ValueError(f"Expected devices to have indices, got {name}")
        self._cond = threading.Condition()
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable] = []

    def __repr__(self):
        return f"<torch.jit.Future object at {id(self):#x}>"

    def done(self) -> bool:
        """True once the future holds a result or an exception."""
        return self._done

    def wait(self) -> T:
        """Block until the future completes; return its value or raise its exception."""
        if not self._done:
            with GATE.released(), self._cond:  # an RPC worker lets its pool threads run meanwhile
                while not self._done:
                    self._cond.wait()
        return self.value()

    def value(self) -> T:
        """The value of a completed future (raises its exception).  Like
        PyTorch, calling it before completion is an error."""
        if not self._done:
            raise RuntimeError("Future.value() called before the future completed: call wait() first")
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A new future completed with ``callback(self)`` once this one completes."""
        child: Future[S] = Future()

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001 - PyTorch wraps every callback error
                child._complete(None, _callback_error(e))
            else:
                child._complete(result, None)

        self._add(run)
        return child

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """Run ``callback(self)`` once this future completes (inline when it already has)."""

        def run(fut):
            try:
                callback(fut)
            except Exception as e:  # noqa: BLE001 - PyTorch logs and drops it
                print(_callback_error(e), file=sys.stderr)

        self._add(run)

    def set_result(self, result: T) -> None:
        """Complete the future with ``result`` and run its callbacks."""
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Complete the future with an error: ``wait()`` / ``value()`` raise ``result``."""
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    # --- internals ------------------------------------------------------------------

    def _add(self, run):
        with self._cond:
            if not self._done:
                self._callbacks.append(run)
                return
        run(self)

    def _complete(self, value, error):
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future "
                                   "can only be marked completed once.")
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for run in callbacks:
            run(self)


def collect_all(futures: list[Future]) -> Future[list[Future]]:
    """A future completed when every one of ``futures`` is; its value is the list
    of futures, and ``wait()`` raises the first error among them."""
    futures = list(futures)
    for f in futures:
        if not isinstance(f, Future):
            raise TypeError(f"collect_all expects a list of torch.futures.Future, got {type(f).__name__}")
    out: Future[list[Future]] = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            error = next((f._error for f in futures if f._error is not None), None)
            out._complete(None if error is not None else futures, error)

    if not futures:
        out.set_result([])
    for f in futures:
        f._add(one_done)
    return out


def wait_all(futures: list[Future]) -> list:
    """Wait for every future; return their values (raises the first error)."""
    return [f.wait() for f in collect_all(futures).wait()]
