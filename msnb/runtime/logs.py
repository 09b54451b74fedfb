"""Keep MindSpore's own log lines out of the user's output unless --verbose.

MindSpore reads its log level from ``GLOG_v`` once, at import, so
:func:`prepare_environment` must run before the first ``import mindspore``.
Even at ``GLOG_v=3`` its C++ core prints ERROR lines that are not the user's
problem (``GetRealPath ... <ipython-input-...>`` whenever ``ms.jit`` compiles
cell code).  Those go straight to file descriptor 2, below Python, so
:class:`StderrFilter` swaps fd 2 for a pipe while a cell runs and drops lines
in MindSpore's C++ log format.
"""

from __future__ import annotations

import os
import re
import sys
import threading

__all__ = ["MINDSPORE_LOG_LINE", "StderrFilter", "prepare_environment"]

#: ``[ERROR] CORE(3435,7f4a55471b80,python):2026-11-29-07:50:26.302 [...] ...``
MINDSPORE_LOG_LINE = re.compile(rb"^\[(DEBUG|INFO|WARNING|ERROR|CRITICAL)\] [A-Z_]+\(\d+,")


def prepare_environment(verbose: bool = False) -> None:
    """Set ``GLOG_v`` (3 = errors only, 2 with --verbose) unless the user set it."""
    os.environ.setdefault("GLOG_v", "2" if verbose else "3")


class StderrFilter:
    """Context manager that filters MindSpore log lines from fd 2.

    A reader thread forwards every other line to the original stderr as it
    arrives, so a cell's own output to fd 2 keeps its order and timing.
    Disabled (a no-op) when ``active`` is false, e.g. with ``--verbose``.
    """

    def __init__(self, active: bool = True) -> None:
        self.active = active
        self._saved_fd: int | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "StderrFilter":
        if not self.active:
            return self
        _flush_python_stderr()
        read_fd, write_fd = os.pipe()
        self._saved_fd = os.dup(2)
        os.dup2(write_fd, 2)
        os.close(write_fd)
        self._thread = threading.Thread(
            target=_forward, args=(read_fd, self._saved_fd), daemon=True, name="msnb-stderr"
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._saved_fd is None:
            return
        _flush_python_stderr()
        os.dup2(self._saved_fd, 2)  # closes the pipe's last write end
        self._thread.join(timeout=5)
        os.close(self._saved_fd)
        self._saved_fd = None


def _flush_python_stderr() -> None:
    try:
        sys.stderr.flush()
    except (AttributeError, ValueError, OSError):
        pass


def _forward(read_fd: int, out_fd: int) -> None:
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        pending = b""
        while chunk := pipe.read(65536):
            pending += chunk
            *lines, pending = pending.split(b"\n")
            _write(out_fd, [line + b"\n" for line in lines])
        _write(out_fd, [pending] if pending else [])


def _write(out_fd: int, lines: list[bytes]) -> None:
    kept = b"".join(line for line in lines if not MINDSPORE_LOG_LINE.match(line))
    try:
        while kept:
            kept = kept[os.write(out_fd, kept):]
    except OSError:  # stderr went away (e.g. the kernel is shutting down)
        pass
