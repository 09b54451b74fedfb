"""msnb's cell analyzer: what in a PyTorch cell will not migrate cleanly to
MindSpore, why, what to write instead, and an automatic rewrite when one is
safe.

    >>> from msnb.analyzer import analyze, fix
    >>> findings = analyze(cell_source, mode="graph", context=earlier_cells)
    >>> fixed = fix(cell_source)

``analyze`` never raises for a ``str`` cell: IPython syntax is masked, a cell
that does not parse yields one ``MSN000`` finding.  Rules live in
:mod:`msnb.analyzer.rules`, one per file; ``docs/rules.md`` lists them.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from . import engine
from .finding import MODES, Category, Finding, Severity

__all__ = ["analyze", "fix", "has_blocking", "Finding", "Severity", "Category", "MODES"]


def analyze(source: str, *, mode: str = "pynative", context: str | Sequence[str] | None = None,
            rules: Iterable[str] | None = None, registry: dict | None = None) -> list[Finding]:
    """Findings for one cell, sorted by position.

    ``mode`` is ``"pynative"`` or ``"graph"`` (severities of mode-dependent
    rules follow it).  ``context`` is the source of earlier cells (a string or
    a sequence of strings, oldest first): their imports, tensors and models
    inform type inference (``loss = criterion(out, y)`` in cell 2 makes
    ``f"{loss:.4f}"`` in cell 3 a finding).  ``rules`` selects rule codes or
    names (default: every rule enabled by default).  ``registry`` overrides
    the adapter's support registry (default: ``msnb.adapter.support``, read
    on every call).
    """
    return engine.analyze(source, mode=mode, context=context, rules=rules, registry=registry)


def fix(source: str, *, rules: Iterable[str] | None = None, mode: str = "pynative",
        context: str | Sequence[str] | None = None, registry: dict | None = None) -> str:
    """``source`` with every safe fix applied (repeated until nothing is
    left to fix, so ``fix(fix(s)) == fix(s)``).  Unfixable findings are left
    for the user; the result always parses when the input did."""
    return engine.fix(source, rules=rules, mode=mode, context=context, registry=registry)


def has_blocking(findings: Iterable[Finding], mode: str) -> bool:
    """True when a finding should stop the cell in ``mode``: any error whose
    severity does not depend on the mode, or a mode-dependent error that was
    computed for ``mode``."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    return any(
        f.severity is Severity.ERROR and (not f.mode_dependent or f.mode == mode) for f in findings
    )
