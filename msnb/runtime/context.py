"""MindSpore context for the duration of one cell: mode, AMP level, device.

Mode is MindSpore's own context (``ms.set_context(mode=...)``) and is put
back after the cell.  MindSpore has no process-wide AMP switch, so the AMP
level is kept here as the *active* cell context, which the adapter reads
(:func:`active`) when it builds networks.  The device can be chosen only once
per process: MindSpore binds its backend on first use, and with it how
kernels are launched (:func:`launch_mode`).
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["CellContext", "DeviceError", "DeviceState", "active", "launch_mode", "mindspore_version",
           "set_launch"]

_MODES = {"pynative": "PYNATIVE_MODE", "graph": "GRAPH_MODE"}
_TARGETS = {"cpu": "CPU", "ascend": "Ascend"}
_active: list["CellContext"] = []
_LAUNCH = ("auto", "async", "blocking")
#: Below this many usable cores the CPU backend launches kernels synchronously.
BLOCKING_BELOW_CORES = 4


class DeviceError(RuntimeError):
    """The requested device cannot be used (not available, or already bound)."""


def mindspore_version() -> str:
    """Installed MindSpore version, read without importing MindSpore."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mindspore")
    except PackageNotFoundError:
        return "not installed"


def active() -> "CellContext | None":
    """The context of the cell or script running now, or None outside one."""
    return _active[-1] if _active else None


def _graph_switch(on: bool) -> None:
    """Tell the adapter's graph mode (if imported; it reads :func:`active` when it is)."""
    graph = sys.modules.get("msnb.adapter.graph")
    if graph is not None:
        graph.set_enabled(on)


def launch_mode(target: str, cores: int, requested: str = "auto") -> str:
    """``"blocking"`` or ``"async"``: how MindSpore should launch kernels.

    MindSpore's PyNative mode hands each kernel to two queue threads that
    spin while they wait.  On the CPU backend with few cores they compete with
    the Python thread for the same cores, and on this project's 2-core hosts
    an op then settles at one scheduler tick (~4 ms) instead of ~40 us after
    a few thousand ops.  Synchronous launch (MindSpore's
    ``mindspore.runtime.launch_blocking``) runs each kernel on the calling
    thread: measured there, a small add 31 vs 40-4000 us, LeNet training
    1.7x the images/s, the test suite 3m37s vs 5m45s.  With more cores (not
    measured here) and on Ascend, where kernels run on the device, MindSpore's
    asynchronous default is kept.  ``MSNB_LAUNCH=async|blocking`` overrides."""
    if requested not in _LAUNCH:
        raise DeviceError(f"MSNB_LAUNCH must be one of {'|'.join(_LAUNCH)}, not {requested!r}")
    if requested != "auto":
        return requested
    return "blocking" if target == "CPU" and cores < BLOCKING_BELOW_CORES else "async"


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def set_launch(ms: Any, target: str) -> str:
    """Apply :func:`launch_mode` for ``target`` on this host (``MSNB_LAUNCH``
    read from the environment); returns the mode.  Synchronous launch is
    process-wide and one-way in MindSpore, so this runs once, when the
    device is bound."""
    launch = launch_mode(target, _usable_cores(), os.environ.get("MSNB_LAUNCH", "auto"))
    if launch == "blocking":
        ms.runtime.launch_blocking()
        # what launch_blocking leaves on a queue thread: a compiled graph's run (graph mode)
        if HOST_BLOCKING_RUN not in os.environ:
            os.environ[HOST_BLOCKING_RUN] = "1"
            os.environ[_HOST_BLOCKING_BY_MSNB] = "1"
    elif os.environ.pop(_HOST_BLOCKING_BY_MSNB, None) is not None:
        os.environ.pop(HOST_BLOCKING_RUN, None)  # inherited from a blocking parent process: not asked for here
    return launch


#: MindSpore's switch that runs the tasks of its pipeline queues on the thread that queues them
#: (read once, at the first task queued; a value the user set is kept; the one msnb set leaves the
#: environment after the first graph run, ``msnb.adapter._ms.trace_run``).  With synchronous launch
#: ``launch_blocking`` runs PyNative kernels on the calling thread, but a compiled graph's run
#: is still handed to MindSpore's ``frontend_queue`` thread, and the next kernel launched from
#: Python waits for it by spinning (``AsyncRQueue::Wait`` is a busy loop).  On a 2-core host
#: that spinning thread takes a core from the graph it waits for: the suite's LSTM step replayed
#: as one graph used 300-400 CPU ms per step, nearly all of it the Python thread spinning,
#: against ~40 ms with the run on the calling thread (benchmarks/graph_step_cpu.py).
HOST_BLOCKING_RUN = "MS_DEV_HOST_BLOCKING_RUN"
#: set with it when msnb (not the user) set it, so that a child process launching asynchronously drops it
_HOST_BLOCKING_BY_MSNB = "MSNB_HOST_BLOCKING_RUN"


class DeviceState:
    """Which MindSpore device target this process uses, chosen on first use."""

    def __init__(self, say: Callable[[str], None] = print) -> None:
        self.target: str | None = None
        self.launch: str | None = None
        self._say = say

    def resolve(self, ms: Any, device: str) -> str:
        """Return ``"CPU"`` or ``"Ascend"`` for ``device`` (auto|cpu|ascend)."""
        ascend_ok = bool(ms.hal.is_available("Ascend"))
        if device == "auto":
            return "Ascend" if ascend_ok else "CPU"
        if device == "ascend" and not ascend_ok:
            raise DeviceError("--device ascend: MindSpore cannot use Ascend on this machine")
        return _TARGETS[device]

    def bind(self, ms: Any, device: str) -> str:
        """Bind the device once (saying which in one line); later calls must agree."""
        target = self.resolve(ms, device)
        if self.target is None:
            if ms.get_context("device_target") != target:
                try:
                    ms.set_device(target)
                except RuntimeError as e:  # MindSpore's runtime already started elsewhere
                    raise DeviceError(f"cannot switch MindSpore to {target} now: {e}") from None
            self.target, self.launch = target, set_launch(ms, target)
            dispatch = sys.modules.get("msnb.adapter._dispatch")
            if dispatch is not None:
                dispatch.select(target)
            why = "" if device != "auto" else (" (Ascend not available)" if target == "CPU" else "")
            how = ", each op finishing before the next line runs" if self.launch == "blocking" else ""
            self._say(f"msnb: running on {target}{why}, MindSpore {ms.__version__}{how}")
        elif target != self.target:
            raise DeviceError(
                f"this kernel already runs on {self.target}; restart it to use {target}"
            )
        return target


@dataclass
class CellContext:
    """Mode, AMP and device applied while one cell or script runs.

    Use as a context manager: MindSpore's mode is set on entry and restored
    on exit, also after an exception or KeyboardInterrupt.
    """

    mode: str
    amp: str
    device: str
    devices: DeviceState
    target: str | None = None

    def __enter__(self) -> "CellContext":
        ms = importlib.import_module("mindspore")
        self.target = self.devices.bind(ms, self.device)
        self._ms = ms
        self._saved_mode = ms.get_context("mode")
        ms.set_context(mode=getattr(ms, _MODES[self.mode]))
        _active.append(self)
        _graph_switch(self.mode == "graph")
        return self

    def __exit__(self, *exc_info) -> None:
        if _active and _active[-1] is self:
            _active.pop()
        _graph_switch(bool(_active) and _active[-1].mode == "graph")
        self._ms.set_context(mode=self._saved_mode)
