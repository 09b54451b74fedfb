"""Compiled graphs per call site, what fell back to PyNative and why, and
how long compiling took.

A :class:`Region` belongs to one call site (a module object, an optimizer
object).  It counts how often each guard key was seen, holds the compiled
entry per key, and remembers keys that must run in PyNative.  The module-level
log of :class:`Fallback` records is what ``%msnb explain`` prints.
"""

from __future__ import annotations

import weakref

import itertools
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Region", "Fallback", "explain", "fallbacks", "stats", "reset", "compiling", "fall_back", "note", "notes"]

#: a key is recorded when seen this many times (a one-off shape, or an
#: optimizer's first step that creates its state, is not worth a compile)
RECORD_AT = 2
#: seconds before "compiling ..." is shown
PROGRESS_AFTER = 1.0

_ids = itertools.count(1)


@dataclass(frozen=True)
class Fallback:
    """One construct that made a region run in PyNative."""

    region: str  # e.g. "LeNet.forward", "SGD.step"
    reason: str  # what happened, e.g. "item() reads a tensor value on the host"
    where: str = ""  # "cell line 12" or "file.py:40"
    text: str = ""  # that source line

    def line(self) -> str:
        at = f" at {self.where}" if self.where else ""
        src = f": {self.text}" if self.text else ""
        return f"{self.region} runs in PyNative: {self.reason}{at}{src}"


_log: list[Fallback] = []
_stats = {"graphs": 0, "compile_seconds": 0.0, "replays": 0}


def _first_line(exc) -> str:
    """``"Type: first line of the message"`` (MindSpore errors run to dozens of lines)."""
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0]}" if msg else type(exc).__name__


def _report():
    return sys.modules.get("msnb.runtime.report")


def fall_back(fb: Fallback, say=print) -> None:
    """Log ``fb`` once and say it in one line; the run report gets it too."""
    if fb in _log:
        return
    repeat = any((f.reason, f.where, f.text) == (fb.reason, fb.where, fb.text) for f in _log)
    _log.append(fb)
    rep = _report()
    if rep is not None:
        rep.record_fallback(fb.line())
    if not repeat:  # a module and its submodule stopped by the same line: say it once
        say(f"msnb graph: {fb.line()}  (%msnb explain lists all)")


_notes: list[str] = []


def note(line: str, say=print) -> None:
    """A compiled-but-not-as-one-graph remark (graph/step.py): said once, listed by :func:`explain`."""
    if line in _notes:
        return
    _notes.append(line)
    say(f"msnb graph: {line}")


def notes() -> list[str]:
    """Every :func:`note` since the last :func:`reset`."""
    return list(_notes)


def fallbacks() -> list[Fallback]:
    """Every fallback since the last :func:`reset`, oldest first."""
    return list(_log)


def explain() -> str:
    """The full fallback list as text (what ``%msnb explain`` prints)."""
    head = (f"graph mode (since the kernel started or `%msnb explain --reset`): {_stats['graphs']} graph(s) "
            f"compiled in {_stats['compile_seconds']:.1f} s, {_stats['replays']} compiled call(s) run")
    lines = [head] + [f"note: {n}" for n in _notes]
    if not _log:
        return "\n".join(lines + ["no fallbacks: every region ran as a compiled graph"])
    lines.append(f"{len(_log)} fallback(s) to PyNative:")
    for i, fb in enumerate(_log, 1):
        lines.append(f"{i}. {fb.region}")
        lines.append(f"   why:   {fb.reason}")
        if fb.where:
            lines.append(f"   where: {fb.where}" + (f": {fb.text}" if fb.text else ""))
    lines.append("Everything else ran compiled.  Move host reads (.item(), print, if on a tensor) out of "
                 "forward, or run the cell with --mode pynative.")
    return "\n".join(lines)


def stats() -> dict:
    """Counters: graphs compiled, seconds spent compiling, compiled calls run."""
    return dict(_stats)


def reset() -> None:
    """Forget the fallback log and counters (compiled graphs stay cached)."""
    _log.clear()
    _notes.clear()
    _stats.update(graphs=0, compile_seconds=0.0, replays=0)


def replayed() -> None:
    _stats["replays"] += 1


def compiled() -> None:
    """One MindSpore graph compiled (a region has one, a module with autograd two)."""
    _stats["graphs"] += 1


@contextmanager
def compiling(label: str, say=print):
    """Time one compile; past :data:`PROGRESS_AFTER` seconds say that it is
    compiling, and at the end how long it took."""
    shown = threading.Event()

    def show():
        shown.set()
        say(f"msnb graph: compiling {label} ...")

    timer = threading.Timer(PROGRESS_AFTER, show)
    timer.daemon = True
    t0 = time.perf_counter()
    graphs0 = _stats["graphs"]
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        dt = time.perf_counter() - t0
        _stats["compile_seconds"] += dt
        rep = _report()
        if rep is not None:
            rep.record_graph(dt, _stats["graphs"] - graphs0)
        if shown.is_set() or dt > PROGRESS_AFTER:
            say(f"msnb graph: compiled {label} in {dt:.1f} s")


#: every region alive (``torch._dynamo.reset`` clears their graphs)
ALL: "weakref.WeakSet[Region]" = weakref.WeakSet()


class Region:
    """The compiled graphs of one call site, by guard key."""

    def __init__(self, label: str):
        self.label = label
        self.uid = next(_ids)
        self.entries: dict = {}
        self.seen: dict = {}
        self.eager: dict = {}  # key -> Fallback: run in PyNative
        ALL.add(self)

    def phase(self, kind: str) -> str:
        n = len(self.entries) + len(self.eager)
        return f"msnb_{kind}_{self.uid}_{n}.{self.uid}"

    def sighting(self, key) -> int:
        n = self.seen.get(key, 0) + 1
        if n <= RECORD_AT:
            self.seen[key] = n
        return n
