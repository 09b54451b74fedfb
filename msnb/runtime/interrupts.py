"""Keep Kernel -> Interrupt a ``KeyboardInterrupt`` while an msnb cell runs.

MindSpore 2.10 installs its own C-level SIGINT handler whenever its runtime
starts a graph (every compiled-graph run and build, and the asynchronous
PyNative pipeline): a ``sigaction`` below Python whose handler sends the
process SIGTERM.  Python's ``signal.getsignal`` still reports Python's handler,
but an interrupt then ends the kernel (exit 143) instead of raising
``KeyboardInterrupt`` -- measured here for graph mode and for asynchronous
launch, also when native MindSpore code ran first.

:class:`InterruptGuard`, entered around every cell and script, puts Python's
own SIGINT handler back at the C level on entry and exit, and while the cell
runs answers a SIGTERM that arrives while MindSpore's handler holds SIGINT
(which is how MindSpore turns an interrupt into SIGTERM) with
``KeyboardInterrupt`` at the next Python line.  A SIGTERM while Python's own
SIGINT handler is in place, or a second one within a second, does what it
did before the cell (by default: the process ends).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from typing import Any

__all__ = ["InterruptGuard"]


class _SigAction(ctypes.Structure):
    """``struct sigaction`` of glibc on Linux (x86_64 and aarch64 share it)."""

    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


def _c_handler(signum: int) -> int | None:
    """Address of the C handler now installed for ``signum`` (None if unknown)."""
    if _LIBC is None:
        return None
    action = _SigAction()
    if _LIBC.sigaction(signum, None, ctypes.byref(action)) != 0:
        return None
    return action.handler or 0


def _reinstall_python_sigint() -> int | None:
    """Install Python's SIGINT trampoline again; return its C address."""
    handler = signal.getsignal(signal.SIGINT)
    if handler is None:  # installed from C outside Python: leave it
        return None
    signal.signal(signal.SIGINT, handler)
    return _c_handler(signal.SIGINT)


def _callback_roots() -> tuple[str, ...]:
    """Folders whose Python code runs C++ that may call back into Python and
    swallow the callback's exceptions: MindSpore's package (once imported)."""
    ms = sys.modules.get("mindspore")
    path = getattr(ms, "__file__", None)
    return (os.path.dirname(path) + os.sep,) if path else ()


#: methods CPython itself calls from C and whose exceptions it clears (``PyObject_HasAttr``
#: on a missing attribute, finalizers): an interrupt raised under one of them is lost
_SWALLOWING = frozenset({"__getattr__", "__del__"})


def _under_callback_root(frame: Any, roots: tuple[str, ...]) -> bool:
    """True when ``frame`` or one of its callers is code in ``roots``, or a method
    that C code calls and whose exception it clears (``__getattr__``, ``__del__``):
    MindSpore's C++ looks attributes up on an op's arguments also when msnb calls
    its kernels directly, with no MindSpore Python frame on the stack."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in _SWALLOWING or (roots and code.co_filename.startswith(roots)):
            return True
        frame = frame.f_back
    return False


class _DeferredInterrupt:
    """A KeyboardInterrupt waiting for the main thread to leave MindSpore's frames.

    Armed from a signal handler: traces new calls (``sys.settrace``) and the
    lines of the frames already on the stack (``f_trace``), raises at the
    first one outside MindSpore, and puts the previous tracing back."""

    def __init__(self) -> None:
        self.pending = False
        self._previous: Any = None
        self._frames: list[tuple[Any, Any]] = []
        self._roots: tuple[str, ...] = ()

    def arm(self, frame: Any, roots: tuple[str, ...]) -> None:
        if self.pending:
            return
        self.pending, self._roots = True, roots
        self._previous = sys.gettrace()
        f = frame
        while f is not None:
            if not (roots and f.f_code.co_filename.startswith(roots)) and f.f_code.co_name not in _SWALLOWING:
                self._frames.append((f, f.f_trace))
                f.f_trace = self._trace
            f = f.f_back
        sys.settrace(self._trace)

    def disarm(self) -> None:
        if not self.pending:
            return
        self.pending = False
        sys.settrace(self._previous)
        for f, previous in self._frames:
            f.f_trace = previous
        self._frames.clear()
        self._previous = None

    def _trace(self, frame: Any, event: str, arg: Any) -> Any:
        __tracebackhide__ = True
        if not self.pending:
            return None
        if _under_callback_root(frame, self._roots):
            return None  # MindSpore's own frames and its callbacks: no line events there
        self.disarm()
        raise KeyboardInterrupt


#: Python's SIGINT trampoline address, read after reinstalling it.
_PYTHON_TRAMPOLINE: int | None = None
#: A second SIGTERM this soon after one turned into KeyboardInterrupt terminates.
_SECOND_SIGTERM_SECONDS = 1.0


class InterruptGuard:
    """Context manager around one cell: SIGINT stays a KeyboardInterrupt.

    A no-op off the main thread (signals are only handled there) and where
    the C handler cannot be read (not Linux).
    """

    def __init__(self) -> None:
        self._saved_term: Any = None
        self._saved_int: Any = None
        self._active = False
        self._converted_at = -1.0
        self._deferred = _DeferredInterrupt()

    def __enter__(self) -> "InterruptGuard":
        if threading.current_thread() is not threading.main_thread() or _LIBC is None:
            return self
        global _PYTHON_TRAMPOLINE
        self._saved_int = signal.getsignal(signal.SIGINT)
        if self._saved_int is signal.default_int_handler:  # a handler of the user's own stays as it is
            signal.signal(signal.SIGINT, self._on_sigint)
        _PYTHON_TRAMPOLINE = _reinstall_python_sigint()
        self._saved_term = signal.getsignal(signal.SIGTERM)
        self._pid = os.getpid()
        signal.signal(signal.SIGTERM, self._on_sigterm)
        self._active = True
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._active:
            return
        self._active = False
        pending = self._deferred.pending
        self._deferred.disarm()
        if self._saved_int is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._saved_int)
        _reinstall_python_sigint()
        signal.signal(signal.SIGTERM, self._saved_term if self._saved_term is not None else signal.SIG_DFL)
        if pending and exc_type is None:  # the interrupt came in MindSpore's last op of the cell
            raise KeyboardInterrupt

    def _interrupt(self, frame: Any) -> None:
        """Raise KeyboardInterrupt here, or as soon as the main thread is out of MindSpore."""
        __tracebackhide__ = True
        roots = _callback_roots()
        if _under_callback_root(frame, roots):
            self._deferred.arm(frame, roots)
            return
        raise KeyboardInterrupt

    def _on_sigint(self, signum: int, frame: Any) -> None:
        """Python's own SIGINT handler during the cell, minding MindSpore's callbacks."""
        __tracebackhide__ = True
        self._interrupt(frame)

    def _on_sigterm(self, signum: int, frame: Any) -> None:
        """SIGTERM during the cell: MindSpore's interrupt, or a real terminate."""
        __tracebackhide__ = True
        if os.getpid() != self._pid:  # a forked child (DataLoader worker): SIGTERM ends it as usual
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        mindspore_holds_sigint = _c_handler(signal.SIGINT) != _PYTHON_TRAMPOLINE
        now = time.monotonic()
        if mindspore_holds_sigint and now - self._converted_at > _SECOND_SIGTERM_SECONDS:
            self._converted_at = now
            _reinstall_python_sigint()
            self._interrupt(frame)
            return
        self._terminate(signum, frame)

    def _terminate(self, signum: int, frame: Any) -> None:
        """Do what the SIGTERM handler before the cell would have done."""
        previous = self._saved_term
        if callable(previous):
            previous(signum, frame)
            return
        if previous == signal.SIG_IGN:
            return
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
