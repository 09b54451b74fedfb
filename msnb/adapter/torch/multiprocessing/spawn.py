"""msnb implementation of ``torch.multiprocessing.spawn`` / ``start_processes``.

``fn(i, *args)`` runs in ``nprocs`` fresh processes running torch on
MindSpore.  As in PyTorch: when one process fails, the others are ended and
the parent raises :class:`ProcessRaisedException` carrying the child's
traceback (or :class:`ProcessExitedException` for an exit code or signal
without a Python exception).
"""

from __future__ import annotations

import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback

from ._context import context_for

__all__ = ["ProcessException", "ProcessRaisedException", "ProcessExitedException", "ProcessContext",
           "SpawnContext", "start_processes", "spawn"]


class ProcessException(Exception):
    """A process started by ``spawn`` failed; ``error_index`` is its index, ``error_pid`` its pid."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """The process's code raised: the message ends with its traceback."""


class ProcessExitedException(ProcessException):
    """The process ended with a non-zero exit code or by a signal, without a Python exception."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    """What each child runs: ``fn(i, *args)``; an exception's traceback goes to ``error_file``."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent ended this process
    except Exception:  # noqa: BLE001 - sent to the parent, which raises it
        with open(error_file, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        sys.exit(1)


class ProcessContext:
    """The running processes of one ``start_processes`` call; ``join()`` waits for them."""

    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _end_all(self, grace_period: float | None) -> None:
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        deadline = time.monotonic() + (grace_period or 0)
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """True when every process has ended well; False while some still run (``timeout`` passed).

        On the first failure the other processes are ended (SIGTERM, then
        SIGKILL after ``grace_period`` seconds) and the failure is raised."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._end_all(grace_period)
        process = self.processes[failed]
        path = self.error_files[failed]
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            code = process.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(f"process {failed:d} terminated with signal {name}", failed,
                                             process.pid, code, name)
            raise ProcessExitedException(f"process {failed:d} terminated with exit code {code:d}", failed,
                                         process.pid, code)
        with open(path, "rb") as f:
            original = pickle.load(f)
        msg = f"\n\n-- Process {failed:d} terminated with the following error:\n{original}"
        raise ProcessRaisedException(msg, failed, process.pid)


class SpawnContext(ProcessContext):
    """``torch.multiprocessing.SpawnContext`` (PyTorch keeps the name for compatibility)."""


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)``; join them, or return their context."""
    ctx = context_for(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="msnb-spawn-err-")
        os.close(fd)
        os.truncate(path, 0)
        p = ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(path)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    try:
        while not context.join():
            pass
    except BaseException:  # a failure raised by join, or an interrupt: nothing may keep running
        context._end_all(0)
        raise
    finally:
        for path in error_files:
            try:
                os.unlink(path)
            except OSError:
                pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """msnb implementation of ``torch.multiprocessing.spawn``: ``fn(i, *args)`` for ``i`` in ``range(nprocs)``."""
    if start_method != "spawn":
        import warnings
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
                      FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
