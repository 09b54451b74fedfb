"""The analyzer hook: findings shown above a cell's output, errors stop it.

``msnb.analyzer`` is written separately; until it provides ``analyze`` the
hook does nothing, so a cell simply runs.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

__all__ = ["CellBlocked", "check", "last_analyzed", "reset_history"]

#: Sources of earlier analyzed cells: the analyzer infers types from them
#: (``loss = criterion(out, y)`` in one cell, ``f"{loss:.4f}"`` in the next).
_HISTORY: list[str] = []
_HISTORY_LIMIT = 50
_LAST: dict[str, str | None] = {"source": None, "mode": None}


def last_analyzed() -> tuple[str | None, str | None]:
    """``(source, mode)`` of the last cell the analyzer saw (for ``%msnb fix``)."""
    return _LAST["source"], _LAST["mode"]


def history() -> tuple[str, ...]:
    return tuple(_HISTORY)


def reset_history() -> None:
    _HISTORY.clear()
    _LAST.update(source=None, mode=None)


class CellBlocked(Exception):
    """Raised instead of running a cell whose analysis found errors.

    IPython shows ``_render_traceback_()`` instead of a traceback, so the
    cell fails with one line under the findings it refers to.
    """

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def _severity(finding: Any) -> str:
    if isinstance(finding, dict):
        return str(finding.get("severity", ""))
    return str(getattr(finding, "severity", ""))


def _render(findings: Sequence[Any]) -> dict[str, str]:
    """MIME bundle with the analyzer's own HTML and text renderings."""
    try:
        from msnb.analyzer import report

        return {"text/plain": report.render_text(findings), "text/html": report.render_html(findings)}
    except (ImportError, AttributeError):  # analyzer without its report module yet
        return {"text/plain": "\n".join(str(f) for f in findings)}


def check(source: str, mode: str, show: Callable[[dict[str, str]], None], ignore: Sequence[str] = (),
          advice: bool = False) -> None:
    """Analyze ``source``; ``show`` the findings; raise CellBlocked on errors.

    Advice (``info`` findings) is shown only when ``advice`` is set: a cell
    that runs under msnb as it would on PyTorch shows nothing.  ``ignore``
    lists rule codes the session or the cell's ``--ignore`` silenced."""
    try:
        from msnb.analyzer import analyze
    except ImportError:
        return
    try:
        from msnb.analyzer import has_blocking
    except ImportError:  # an analyzer without the helper: every error blocks
        def has_blocking(found, _mode):
            return any(_severity(f) == "error" for f in found)
    if ignore:
        findings = list(analyze(source, mode=mode, context=tuple(_HISTORY), ignore=tuple(ignore)))
    else:
        findings = list(analyze(source, mode=mode, context=tuple(_HISTORY)))
    if not advice:
        findings = [f for f in findings if _severity(f) != "info" or str(getattr(f, "rule", "")).startswith("MSN00")]
    _LAST.update(source=source, mode=mode)
    _HISTORY.append(source)
    del _HISTORY[:-_HISTORY_LIMIT]
    if not findings:
        return
    show(_render(findings))
    if has_blocking(findings, mode):
        errors = sum(_severity(f) == "error" for f in findings)
        raise CellBlocked(
            f"msnb: cell not run: {errors} error finding(s) above "
            "(fix them, silence one with --ignore CODE, or run with --no-analyze)"
        )
