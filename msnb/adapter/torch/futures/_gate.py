"""One thread at a time runs torch code in a process that serves RPCs.

MindSpore 2.10's PyNative runtime is not thread-safe (measured here: four
threads training small models at once fail with "The pointer[runtime_info] is
null"), while PyTorch's RPC runs callee functions in a thread pool.  So the
thread that called ``init_rpc`` and every pool thread running a request hold
this gate while they run; a thread lets it go while it waits for the network
(``rpc_sync``, ``Future.wait``, ``RRef.to_here``, ``shutdown``), which is when
PyTorch programs let other work happen.
"""

from __future__ import annotations

import contextlib
import threading

__all__ = ["GATE"]


class _Gate:
    def __init__(self):
        self._lock = threading.Lock()
        self._local = threading.local()

    def held(self) -> bool:
        return getattr(self._local, "held", False)

    def acquire(self):
        self._lock.acquire()
        self._local.held = True

    def release(self):
        self._local.held = False
        self._lock.release()

    @contextlib.contextmanager
    def holding(self):
        """Hold the gate inside (re-entrant for the thread that holds it)."""
        if self.held():
            yield
            return
        self.acquire()
        try:
            yield
        finally:
            self.release()

    @contextlib.contextmanager
    def released(self):
        """Let the gate go inside (a blocking wait), then take it back."""
        if not self.held():
            yield
            return
        self.release()
        try:
            yield
        finally:
            self.acquire()


GATE = _Gate()
