"""The result type of the analyzer: one ``Finding`` per problem found in a cell.

A finding says what is wrong (``message``), why it matters on MindSpore
(``why``), what to write instead (``suggestion``) and, when a safe automatic
rewrite exists, the whole rewritten cell (``fix``).

``fix`` is computed on first access, not during analysis: the analysis runs on
Python's ``ast`` (about 1 ms for a 100-line cell), while rewrites go through
libcst, which on the reference machine costs 10-40 ms per cell.  The magic
shows findings on every run but only needs rewrites for ``%msnb fix``, so
paying for libcst lazily keeps per-cell latency low.  ``fixable`` tells
without computing the rewrite whether one is offered.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Severity", "Category", "Finding", "MODES"]

#: Execution modes the analyzer knows; rules whose severity depends on the
#: mode receive one of these.
MODES = ("pynative", "graph")


class Severity(str, enum.Enum):
    """How bad a finding is; ``error`` stops a ``%%torch_on_ascend`` cell."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    def __str__(self) -> str:  # "error", not "Severity.ERROR", in messages
        return self.value


class Category(str, enum.Enum):
    """The fixed set of rule categories (issue #7).

    ``SYNTAX`` is not a rule category: it is reserved for the single finding
    (code ``MSN000``) the engine returns when a cell does not parse, so that
    callers always get findings rather than an exception.
    """

    CUDA = "cuda"
    INPLACE = "inplace"
    VIEW = "view"
    FORMAT_STRING = "format-string"
    UNSUPPORTED_API = "unsupported-api"
    GRAPH_MODE = "graph-mode"
    AUTOGRAD_FUNCTION = "autograd-function"
    DISTRIBUTED = "distributed"
    CHECKPOINT = "checkpoint"
    NAME_CONFLICT = "name-conflict"
    NUMPY_INTEROP = "numpy-interop"
    DEPRECATED_API = "deprecated-api"
    SYNTAX = "syntax"

    def __str__(self) -> str:
        return self.value


_UNSET = object()


@dataclass(eq=True)
class Finding:
    """One problem in a cell.

    Positions are 1-based lines and 1-based columns counted in characters
    (``end_col`` is exclusive), relative to the cell source as given.
    ``mode`` is the execution mode the finding was computed for and
    ``mode_dependent`` says whether its severity would differ in another mode
    (see :func:`msnb.analyzer.has_blocking`).
    """

    rule: str
    category: Category
    severity: Severity
    line: int
    col: int
    end_line: int
    end_col: int
    message: str
    why: str
    suggestion: str
    mode: str = "pynative"
    mode_dependent: bool = False
    _fixer: Callable[[], str | None] | None = field(default=None, repr=False, compare=False)
    _fix_cache: object = field(default=_UNSET, repr=False, compare=False)

    @property
    def fixable(self) -> bool:
        """True when the rule offers an automatic rewrite for this finding."""
        return self._fixer is not None

    @property
    def fix(self) -> str | None:
        """The rewritten cell source with only this finding fixed, or None.

        None when no safe automatic fix exists (or, rarely, when the rewrite
        could not be located in the concrete syntax tree).
        """
        if self._fix_cache is _UNSET:
            self._fix_cache = self._fixer() if self._fixer is not None else None
        return self._fix_cache  # type: ignore[return-value]

    def location(self, prefix: str = "") -> str:
        """``prefix:line:col`` (Ruff / nbQA style), or ``line:col``."""
        return f"{prefix}:{self.line}:{self.col}" if prefix else f"{self.line}:{self.col}"

    def to_dict(self) -> dict:
        """A JSON-ready dict (the fix is included, so it is computed)."""
        return {
            "rule": self.rule,
            "category": str(self.category),
            "severity": str(self.severity),
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "message": self.message,
            "why": self.why,
            "suggestion": self.suggestion,
            "mode": self.mode,
            "fix": self.fix,
        }
