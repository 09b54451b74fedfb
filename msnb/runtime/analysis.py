"""The analyzer hook: findings shown above a cell's output, errors stop it.

``msnb.analyzer`` is written separately; until it provides ``analyze`` the
hook does nothing, so a cell simply runs.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

__all__ = ["CellBlocked", "check"]


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


def check(source: str, mode: str, show: Callable[[dict[str, str]], None]) -> None:
    """Analyze ``source``; ``show`` the findings; raise CellBlocked on errors."""
    try:
        from msnb.analyzer import analyze
    except ImportError:
        return
    findings = list(analyze(source, mode=mode))
    if not findings:
        return
    show(_render(findings))
    errors = sum(_severity(f) == "error" for f in findings)
    if errors:
        raise CellBlocked(
            f"msnb: cell not run: {errors} error finding(s) above "
            "(fix them, or run with --no-analyze)"
        )
