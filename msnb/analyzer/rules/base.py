"""Base class and example types shared by every rule.

A rule is one class in one file (Fixit style).  Its class attributes are the
documentation (``MESSAGE`` says what is wrong, ``WHY`` why it matters on
MindSpore, ``SUGGESTION`` what to write instead) and its ``VALID`` /
``INVALID`` examples are both the generated docs and the tests
(``tests/analyzer/test_rules.py``).

A rule implements ``visit_<AstNodeType>(self, node, ctx)`` methods; the engine
walks the cell's ``ast`` once and calls every rule's handlers for each node
(one combined pass, no per-rule traversal).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..finding import Category, Severity

__all__ = ["Rule", "Valid", "Invalid"]


@dataclass(frozen=True)
class Valid:
    """Code that must produce no finding of the rule (in ``mode``)."""

    code: str
    mode: str = "pynative"
    context: tuple[str, ...] = ()


@dataclass(frozen=True)
class Invalid:
    """Code that must produce a finding of the rule at ``line``:``col``
    (1-based) with ``severity`` in ``mode``; ``fix`` is the expected
    rewritten cell, or None when no automatic fix is offered."""

    code: str
    line: int = 1
    col: int = 1
    severity: Severity = Severity.WARNING
    fix: str | None = None
    mode: str = "pynative"
    context: tuple[str, ...] = ()


class Rule:
    """One check.  Subclasses set the class attributes and visitor methods."""

    CODE: str = "MSN000"
    NAME: str = "rule"
    CATEGORY: Category = Category.CUDA
    MESSAGE: str = ""
    WHY: str = ""
    SUGGESTION: str = ""
    #: Severity in PyNative and in Graph mode; None = not reported there.
    SEVERITY_PYNATIVE: Severity | None = Severity.WARNING
    SEVERITY_GRAPH: Severity | None = Severity.WARNING
    #: Off-by-default rules (the MSN9xx range) run only when selected.
    DEFAULT_ENABLED: bool = True
    #: Whether the fix is semantics-preserving on msnb (documentation).
    FIX_SAFETY: str = "No automatic fix."
    VALID: list[Valid] = []
    INVALID: list[Invalid] = []

    @classmethod
    def severity_for(cls, mode: str) -> Severity | None:
        return cls.SEVERITY_GRAPH if mode == "graph" else cls.SEVERITY_PYNATIVE

    @classmethod
    def mode_dependent(cls) -> bool:
        return cls.SEVERITY_GRAPH != cls.SEVERITY_PYNATIVE
