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

__all__ = ["analyze", "fix", "has_blocking", "visible", "Finding", "Severity", "Category", "MODES"]


def analyze(source: str, *, mode: str = "pynative", context: str | Sequence[str] | None = None,
            rules: Iterable[str] | None = None, registry: dict | None = None,
            ignore: Iterable[str] | str | None = None) -> list[Finding]:
    """Findings for one cell, sorted by position.

    ``mode`` is ``"pynative"`` or ``"graph"`` (severities of mode-dependent
    rules follow it).  ``context`` is the source of earlier cells (a string or
    a sequence of strings, oldest first): their imports, tensors and models
    inform type inference (``loss = criterion(out, y)`` in cell 2 makes
    ``f"{loss:.4f}"`` in cell 3 a finding).  ``rules`` selects rule codes or
    names (default: every rule enabled by default).  ``registry`` overrides
    the adapter's support registry (default: ``msnb.adapter.support``, read
    on every call).  ``ignore`` drops findings of these codes (or names;
    an iterable or ``"MSN201,MSN301"``); a line ending in
    ``# msnb: ignore[MSN201]`` (or ``# msnb: ignore`` for every code) drops
    that line's findings.  An unknown code raises ``ValueError``.

    Severity says what the cell does under msnb in ``mode``: ``error`` - it
    fails; ``warning`` - it runs but its result differs from PyTorch's, or
    graph mode runs part of it in PyNative; ``info`` - advice, the cell runs
    as it would on PyTorch (the notebook hides advice unless
    ``%msnb analyze --all`` or the ``advice`` setting asks for it).
    """
    return engine.analyze(source, mode=mode, context=context, rules=rules, registry=registry, ignore=ignore)


def fix(source: str, *, rules: Iterable[str] | None = None, mode: str = "pynative",
        context: str | Sequence[str] | None = None, registry: dict | None = None,
        ignore: Iterable[str] | str | None = None) -> str:
    """``source`` with every safe fix applied (repeated until nothing is
    left to fix, so ``fix(fix(s)) == fix(s)``).  Unfixable findings and
    ignored ones (``ignore``, ``# msnb: ignore``) are left as they are; the
    result always parses when the input did, keeps the input's line endings,
    and never raises for a ``str``."""
    return engine.fix(source, rules=rules, mode=mode, context=context, registry=registry, ignore=ignore)


def has_blocking(findings: Iterable[Finding], mode: str) -> bool:
    """True when a finding should stop the cell in ``mode``: any error whose
    severity does not depend on the mode, or a mode-dependent error that was
    computed for ``mode``."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    return any(
        f.severity is Severity.ERROR and (not f.mode_dependent or f.mode == mode) for f in findings
    )


def visible(findings: Iterable[Finding], *, advice: bool = False) -> list[Finding]:
    """The findings a notebook shows: errors and warnings, plus advice
    (``info``) only when ``advice`` is set (``%msnb analyze --all``, the
    ``advice`` setting).  A cell that runs as it would on PyTorch shows
    nothing by default; the engine's own notes (``MSN00x``: the cell does not
    parse, could not be analyzed, ran out of time) are always shown."""
    return [f for f in findings if advice or f.severity is not Severity.INFO or f.rule.startswith("MSN00")]
