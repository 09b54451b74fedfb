"""MindSpore context for the duration of one cell: mode, AMP level, device.

Mode is MindSpore's own context (``ms.set_context(mode=...)``) and is put
back after the cell.  MindSpore has no process-wide AMP switch, so the AMP
level is kept here as the *active* cell context, which the adapter reads
(:func:`active`) when it builds networks.  The device can be chosen only once
per process: MindSpore binds its backend on first use.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["CellContext", "DeviceError", "DeviceState", "active", "mindspore_version"]

_MODES = {"pynative": "PYNATIVE_MODE", "graph": "GRAPH_MODE"}
_TARGETS = {"cpu": "CPU", "ascend": "Ascend"}
_active: list["CellContext"] = []


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


class DeviceState:
    """Which MindSpore device target this process uses, chosen on first use."""

    def __init__(self, say: Callable[[str], None] = print) -> None:
        self.target: str | None = None
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
            self.target = target
            dispatch = sys.modules.get("msnb.adapter._dispatch")
            if dispatch is not None:
                dispatch.select(target)
            why = "" if device != "auto" else (" (Ascend not available)" if target == "CPU" else "")
            self._say(f"msnb: running on {target}{why}, MindSpore {ms.__version__}")
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
