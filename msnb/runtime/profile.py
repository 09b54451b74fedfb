"""``--profile``: which torch calls a cell made, how long they took, where they ran.

While a profiled cell or script runs, :class:`Profiler` watches Python calls
(``sys.setprofile``) and times every call from the user's code into msnb's
adapter -- ``torch.matmul``, ``torch.Tensor.add``, a ``torch.nn.Linear``
module call -- and says where it ran: as MindSpore kernels, as a compiled
graph (graph mode replayed one), in PyNative because graph mode fell back
(with the reason), or on the host (with the reason).  ``--profile=lines``
adds the time of each line of the cell (``sys.settrace``, only for frames of
the cell's own file).  Nothing is installed when profiling is off, so an op
costs what it did.

Host fallbacks: code in msnb that computes an op on the host (numpy) instead
of a MindSpore kernel calls :func:`host_fallback` once per call::

    from msnb.runtime.profile import host_fallback
    host_fallback("torch.linalg.svd", "MindSpore 2.10 has no CPU kernel for SVD")

It costs one environment lookup when nothing profiles.  With
``MSNB_FAIL_ON_FALLBACK=1`` it raises :class:`FallbackError` instead, and so
does a graph-mode fallback to PyNative (:func:`check_fallback`, called by
the run report): a CI run fails on any fallback.
"""

from __future__ import annotations

import html
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from msnb.runtime.tracebacks import ADAPTER_DIR, hidden_dirs, hidden_file, torch_name

__all__ = ["FallbackError", "Profiler", "active", "check_fallback", "fail_on_fallback", "graph_fallback",
           "host_fallback"]

_active: "Profiler | None" = None


class FallbackError(RuntimeError):
    """An op ran on the host, or graph mode fell back, with MSNB_FAIL_ON_FALLBACK=1."""


def fail_on_fallback() -> bool:
    return os.environ.get("MSNB_FAIL_ON_FALLBACK", "") not in ("", "0")


def active() -> "Profiler | None":
    """The profiler of the running cell, or None."""
    return _active


def check_fallback(what: str) -> None:
    """Raise :class:`FallbackError` for ``what`` when MSNB_FAIL_ON_FALLBACK is set."""
    if fail_on_fallback():
        raise FallbackError(f"{what} (MSNB_FAIL_ON_FALLBACK=1 makes every fallback an error)")


def host_fallback(op: str, reason: str) -> None:
    """``op`` (its torch name) ran on the host instead of a MindSpore kernel, because ``reason``."""
    check_fallback(f"{op} ran on the host: {reason}")
    if _active is not None:
        _active.note_host(op, reason)


def graph_fallback(reason: str) -> None:
    """Graph mode ran part of the cell in PyNative (called by the run report)."""
    if _active is not None:
        _active.note_graph_fallback(reason)


@dataclass
class _Row:
    calls: int = 0
    seconds: float = 0.0
    where: dict[str, int] = field(default_factory=dict)


class Profiler:
    """Times torch calls made from user code; ``lines=True`` also per-line times of ``cell_file``."""

    def __init__(self, cell_file: str | None = None, lines: bool = False) -> None:
        self.cell_file = cell_file
        self.lines = lines
        self.rows: dict[str, _Row] = {}
        self.host: list[tuple[str, str]] = []
        self.graph_fallbacks: list[str] = []
        self.line_times: dict[tuple[str, int], float] = {}
        self._open: dict[int, list] = {}
        self._stack: list[list] = []
        self._codes: dict[Any, bool] = {}
        self._dirs = hidden_dirs()
        self._last_line: tuple[str, int] | None = None
        self._last_t = 0.0
        self.wall = 0.0

    # --- start / stop -------------------------------------------------------------------------
    def __enter__(self) -> "Profiler":
        global _active
        _active = self
        self._t0 = time.perf_counter()
        sys.setprofile(self._on_event)
        if self.lines and self.cell_file:
            self._last_t = time.perf_counter()
            sys.settrace(self._on_call_trace)
        return self

    def __exit__(self, *exc_info) -> None:
        global _active
        sys.setprofile(None)
        if self.lines:
            sys.settrace(None)
            self._charge_line(time.perf_counter())
        self.wall = time.perf_counter() - self._t0
        _active = None

    # --- torch calls ----------------------------------------------------------------------------
    def _is_adapter(self, code) -> bool:
        known = self._codes.get(code)
        if known is None:
            known = self._codes[code] = code.co_filename.startswith(ADAPTER_DIR)
        return known

    def _on_event(self, frame, event, arg) -> None:
        if event == "call":
            if not self._is_adapter(frame.f_code):
                return
            caller = frame.f_back
            if caller is None or self._is_adapter(caller.f_code) or hidden_file(caller.f_code.co_filename, self._dirs):
                return
            if frame.f_code.co_name == "__getattr__" and "self" not in frame.f_code.co_varnames:
                return  # a package's lazy submodule import, not a torch call
            entry = [torch_name(frame), time.perf_counter(), _replays(), None]
            self._open[id(frame)] = entry
            self._stack.append(entry)
        elif event == "return":
            entry = self._open.pop(id(frame), None)
            if entry is None:
                return
            if self._stack and self._stack[-1] is entry:
                self._stack.pop()
            row = self.rows.setdefault(entry[0], _Row())
            row.calls += 1
            row.seconds += time.perf_counter() - entry[1]
            if entry[3] is not None:
                where = entry[3]
            elif _replays() > entry[2]:
                where = "compiled graph"
            else:
                where = "MindSpore kernels"
            row.where[where] = row.where.get(where, 0) + 1

    def note_host(self, op: str, reason: str) -> None:
        if (op, reason) not in self.host:
            self.host.append((op, reason))
        for entry in self._stack:
            entry[3] = f"host: {reason}"

    def note_graph_fallback(self, reason: str) -> None:
        if reason not in self.graph_fallbacks:
            self.graph_fallbacks.append(reason)
        for entry in self._stack:
            entry[3] = "PyNative (graph fallback)"

    # --- lines ------------------------------------------------------------------------------------
    def _on_call_trace(self, frame, event, arg):
        if frame.f_code.co_filename == self.cell_file:
            return self._on_line
        return None

    def _charge_line(self, now: float) -> None:
        if self._last_line is not None:
            self.line_times[self._last_line] = self.line_times.get(self._last_line, 0.0) + now - self._last_t
        self._last_t = now

    def _on_line(self, frame, event, arg):
        if event in ("line", "return"):
            self._charge_line(time.perf_counter())
            if event == "line":
                self._last_line = (frame.f_code.co_filename, frame.f_lineno)
            elif frame.f_back is not None and frame.f_back.f_code.co_filename == self.cell_file:
                self._last_line = (self.cell_file, frame.f_back.f_lineno)
        return self._on_line

    # --- output ---------------------------------------------------------------------------------
    def table(self) -> list[tuple[str, int, float, float, str]]:
        """(torch call, calls, total s, per-call s, where) rows, slowest first."""
        out = []
        for name, row in sorted(self.rows.items(), key=lambda kv: -kv[1].seconds):
            where = ", ".join(w if n == row.calls else f"{w} ({n}x)" for w, n in row.where.items())
            out.append((name, row.calls, row.seconds, row.seconds / row.calls, where))
        return out

    def _line_rows(self) -> list[tuple[int, float, str]]:
        import linecache

        return [(lineno, t, linecache.getline(name, lineno).rstrip())
                for (name, lineno), t in sorted(self.line_times.items(), key=lambda kv: kv[0][1])]

    def render_text(self) -> str:
        rows = self.table()
        width = max([len("torch call")] + [len(r[0]) for r in rows])
        lines = [f"msnb profile: {sum(r[1] for r in rows)} torch call(s) in {self.wall:.3f} s",
                 f"{'torch call':<{width}}  {'calls':>6}  {'total s':>9}  {'per call ms':>11}  where"]
        for name, calls, total, per, where in rows:
            lines.append(f"{name:<{width}}  {calls:>6}  {total:>9.4f}  {per * 1e3:>11.3f}  {where}")
        lines += self._fallback_lines()
        if self.lines:
            lines.append("per line:")
            lines += [f"{lineno:>5}  {t:>9.4f} s  {text}" for lineno, t, text in self._line_rows()]
        return "\n".join(lines)

    def _fallback_lines(self) -> list[str]:
        if not self.host and not self.graph_fallbacks:
            return ["host fallbacks: none"]
        out = ["host fallbacks:"] if self.host else []
        out += [f"  {op}: {reason}" for op, reason in self.host]
        if self.graph_fallbacks:
            out.append("graph mode fell back to PyNative:")
            out += [f"  {reason}" for reason in self.graph_fallbacks]
        return out

    def render_html(self) -> str:
        e = html.escape
        rows = "".join(
            f"<tr><td><code>{e(n)}</code></td><td>{c}</td><td>{t:.4f}</td><td>{p * 1e3:.3f}</td><td>{e(w)}</td></tr>"
            for n, c, t, p, w in self.table())
        parts = [f"<div class='msnb-profile'><b>msnb profile</b>: {self.wall:.3f} s",
                 "<table><thead><tr><th>torch call</th><th>calls</th><th>total s</th><th>per call ms</th>"
                 f"<th>where</th></tr></thead><tbody>{rows}</tbody></table>",
                 "<ul>" + "".join(f"<li>{e(line.strip())}</li>" for line in self._fallback_lines()) + "</ul>"]
        if self.lines:
            body = "".join(f"<tr><td>{n}</td><td>{t:.4f}</td><td><code>{e(text)}</code></td></tr>"
                           for n, t, text in self._line_rows())
            parts.append(f"<table><thead><tr><th>line</th><th>s</th><th>code</th></tr></thead><tbody>{body}"
                         "</tbody></table>")
        return "".join(parts) + "</div>"

    def bundle(self) -> dict[str, str]:
        return {"text/plain": self.render_text(), "text/html": self.render_html()}


def _replays() -> int:
    graph = sys.modules.get("msnb.adapter.graph.region")
    return graph._stats["replays"] if graph is not None else 0
