"""Render findings for the notebook (HTML), a terminal (text), and diffs.

The magic shows findings above the cell output: one compact line per
finding (code, line:col, message, suggestion), most severe first within a
line, HTML-escaped since messages quote user code.
"""

from __future__ import annotations

import difflib
import html
import re
from typing import Iterable

from .finding import Finding, Severity

__all__ = ["render_html", "render_text", "render_diff", "render_diff_html", "summary"]

_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_COLORS = {Severity.ERROR: "#c62828", Severity.WARNING: "#ef6c00", Severity.INFO: "#1565c0"}
_ICONS = {Severity.ERROR: "✖", Severity.WARNING: "⚠", Severity.INFO: "ℹ"}


_BACKTICKS = re.compile(r"`([^`]+)`")


def _inline(text: str) -> str:
    """Escape ``text`` and show its `code` spans as ``<code>`` (messages quote code in backticks)."""
    return _BACKTICKS.sub(lambda m: f"<code>{m.group(1)}</code>", html.escape(text))


def _sorted(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.line, f.col, _ORDER[f.severity], f.rule))


def summary(findings: Iterable[Finding]) -> str:
    """``"1 error, 2 warnings"`` (empty string for no findings)."""
    counts = {s: 0 for s in Severity}
    for f in findings:
        counts[f.severity] += 1
    parts = []
    for sev in Severity:
        n = counts[sev]
        if n:
            parts.append(f"{n} {sev.value}{'' if n == 1 else 's'}")
    return ", ".join(parts)


def render_text(findings: Iterable[Finding], *, prefix: str = "") -> str:
    """One line per finding, ``[prefix:]line:col: CODE severity: message``,
    with the suggestion indented below; empty string when there are none."""
    items = _sorted(findings)
    if not items:
        return ""
    lines = []
    for f in items:
        lines.append(f"{f.location(prefix)}: {f.rule} {f.severity.value}: {f.message}")
        lines.append(f"    -> {f.suggestion}" + ("  [fixable: %msnb fix]" if f.fixable else ""))
    lines.append(f"msnb analyzer: {summary(items)}")
    return "\n".join(lines)


def render_html(findings: Iterable[Finding]) -> str:
    """A compact HTML list for display above the cell's output; empty string
    when there are no findings (so nothing is displayed)."""
    items = _sorted(findings)
    if not items:
        return ""
    rows = []
    for f in items:
        color = _COLORS[f.severity]
        fixable = ' <span style="opacity:.7">[fixable: <code>%msnb fix</code>]</span>' if f.fixable else ""
        rows.append(
            f'<li class="msnb-finding msnb-{f.severity.value}" title="{html.escape(f.why, quote=True)}">'
            f'<span style="color:{color}">{_ICONS[f.severity]} <b>{html.escape(f.rule)}</b></span> '
            f"<code>{f.line}:{f.col}</code> {_inline(f.message)}"
            f'<br><span style="opacity:.8">&rarr; {_inline(f.suggestion)}</span>{fixable}</li>'
        )
    return (
        '<div class="msnb-analyzer" style="font-size:90%;margin:2px 0">'
        f"<b>msnb analyzer</b>: {html.escape(summary(items))}"
        '<ul style="margin:2px 0;padding-left:1.2em;list-style:none">' + "".join(rows) + "</ul></div>"
    )


def render_diff(old: str, new: str, *, name: str = "cell") -> str:
    """Unified diff from ``old`` to ``new`` (empty when they are equal)."""
    diff = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile=f"{name} (before)", tofile=f"{name} (fixed)",
    )
    out = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
    return out


_DIFF_STYLE = {"+": "background:#e6ffec;color:#116329", "-": "background:#ffebe9;color:#82071e",
               "@": "color:#6639ba"}


def render_diff_html(old: str, new: str, *, name: str = "cell") -> str:
    """The unified diff as coloured HTML (added lines green, removed red),
    for Jupyter; empty string when there is no change."""
    text = render_diff(old, new, name=name)
    if not text:
        return ""
    rows = []
    for line in text.splitlines():
        style = "font-weight:bold" if line.startswith(("---", "+++")) else _DIFF_STYLE.get(line[:1], "")
        rows.append(f'<span style="{style}">{html.escape(line) or "&nbsp;"}</span>')
    return ('<pre class="msnb-diff" style="font-size:90%;line-height:1.3;margin:2px 0">'
            + "\n".join(rows) + "</pre>")
