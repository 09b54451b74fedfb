"""What the last ``%%torch_on_ascend`` cell (or ``msnb exec`` script) actually did.

The engine opens a :class:`RunReport` when a cell starts (:func:`record_start`)
and closes it when the cell ends (:func:`record_finish`); code that runs in
between -- graph mode, the AMP policy -- adds to the open report with
:func:`record_graph`, :func:`record_step`, :func:`record_fallback`.  The panel
subscribes (:func:`subscribe`) and redraws its "last cell" section from
:func:`last`.  Plain data and callbacks, no IPython or MindSpore import.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

__all__ = ["RunReport", "last", "current", "record_start", "record_finish", "record_graph", "record_step",
           "record_fallback", "subscribe", "unsubscribe", "clear"]


@dataclass
class RunReport:
    """One cell's run: what was asked, what was used, how long it took."""

    mode: str  # mode the cell ran in ("pynative" | "graph"); graph code may downgrade it on fallback
    amp: str
    device: str  # as asked: auto | cpu | ascend
    target: str | None = None  # what MindSpore ran on: "CPU" | "Ascend"
    wall_time: float = 0.0  # seconds, whole cell
    ok: bool = True
    error: str | None = None  # "ExcType: message" when the cell raised
    graphs_compiled: int = 0
    compile_time: float = 0.0  # seconds spent compiling graphs, summed
    step_time: float | None = None  # seconds per step, mean of the steps graph mode timed
    steps: int = 0
    fallbacks: list[str] = field(default_factory=list)  # why parts ran in PyNative instead of graph
    _started: float = field(default=0.0, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        """Public fields only (what the panel shows and tests compare)."""
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}


_last: RunReport | None = None
_current: RunReport | None = None
_subscribers: list[Callable[[RunReport], None]] = []


def last() -> RunReport | None:
    """The report of the last finished cell, or None before the first."""
    return _last


def current() -> RunReport | None:
    """The report of the cell running now (graph-mode code fills it), or None."""
    return _current


def record_start(options: dict[str, Any]) -> RunReport:
    """Open the report of a cell about to run with ``options`` (mode, amp, device)."""
    global _current
    _current = RunReport(options["mode"], options["amp"], options["device"], _started=time.perf_counter())
    return _current


def record_finish(report: RunReport, error: BaseException | None = None) -> RunReport:
    """Close ``report`` (wall time, error), make it :func:`last`, tell subscribers."""
    global _current, _last
    report.wall_time = time.perf_counter() - report._started
    if error is not None:
        report.ok = False
        report.error = f"{type(error).__name__}: {error}"
    if _current is report:
        _current = None
    _last = report
    for callback in list(_subscribers):
        try:
            callback(report)
        except Exception as exc:  # a broken subscriber must not fail the user's cell
            warnings.warn(f"msnb: run report subscriber {callback!r} failed: {exc!r}", stacklevel=2)
    return report


def record_graph(compile_seconds: float, graphs: int = 1) -> None:
    """``graphs`` graphs compiled in the running cell, taking ``compile_seconds``."""
    if _current is not None:
        _current.graphs_compiled += graphs
        _current.compile_time += compile_seconds


def record_step(seconds: float) -> None:
    """One timed step of the running cell; ``step_time`` keeps the running mean."""
    if _current is not None:
        n = _current.steps
        _current.step_time = seconds if n == 0 else (_current.step_time * n + seconds) / (n + 1)
        _current.steps = n + 1


def record_fallback(reason: str, mode: str | None = None) -> None:
    """Part of the running cell did not run as asked (e.g. graph -> PyNative).

    With ``MSNB_FAIL_ON_FALLBACK=1`` this raises ``FallbackError`` instead."""
    from msnb.runtime import profile

    profile.check_fallback(f"graph mode fell back: {reason}")
    profile.graph_fallback(reason)
    if _current is not None:
        _current.fallbacks.append(reason)
        if mode is not None:
            _current.mode = mode


def subscribe(callback: Callable[[RunReport], None]) -> None:
    """Call ``callback(report)`` after every cell."""
    if callback not in _subscribers:
        _subscribers.append(callback)


def unsubscribe(callback: Callable[[RunReport], None]) -> None:
    if callback in _subscribers:
        _subscribers.remove(callback)


def clear() -> None:
    """Forget the last report (tests)."""
    global _last, _current
    _last = _current = None
