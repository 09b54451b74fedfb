"""The one place the migration tools call the analyzer with a rule selection.

``select`` picks rules (default: the analyzer's default rules) and
``ignore`` drops codes.  :func:`analyze_cell` filters ignored codes after
``analyze(..., rules=select)``; once ``msnb.analyzer.analyze`` takes
``ignore=`` itself, only this module changes.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from msnb import analyzer
from msnb.analyzer.config import Config, config_for, validate_codes

__all__ = ["Selection", "selection_for", "analyze_cell", "fix_cell"]


class Selection:
    """Rule codes to run (``select``, None = defaults) and to drop (``ignore``)."""

    __slots__ = ("select", "ignore")

    def __init__(self, select: Iterable[str] | None = None, ignore: Iterable[str] = ()) -> None:
        self.select = tuple(select) if select is not None else None
        self.ignore = frozenset(ignore)

    def fix_rules(self) -> list[str] | None:
        """Rules whose fixes may be applied: the selection minus ``ignore``."""
        if not self.ignore and self.select is None:
            return None
        from msnb.analyzer.rules import ALL_RULES

        chosen = self.select if self.select is not None else [r.CODE for r in ALL_RULES if r.DEFAULT_ENABLED]
        return [c for c in chosen if c not in self.ignore]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Selection) and (self.select, self.ignore) == (other.select, other.ignore)

    def __repr__(self) -> str:
        return f"Selection(select={self.select}, ignore={sorted(self.ignore)})"


def selection_for(path, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None) -> Selection:
    """Command-line choices merged with ``[tool.msnb]`` of the nearest
    ``pyproject.toml``: ``select`` given here replaces the file's, ``ignore``
    adds to it (Ruff's rule).  Unknown codes raise ``ConfigError``."""
    config: Config = config_for(path)
    chosen = validate_codes(select, where="--select") if select is not None else config.select
    dropped = set(config.ignore)
    if ignore is not None:
        dropped |= set(validate_codes(ignore, where="--ignore"))
    return Selection(chosen, dropped)


def analyze_cell(source: str, *, mode: str, context: Sequence[str], selection: Selection) -> list:
    """Findings of one cell under ``selection``."""
    findings = analyzer.analyze(source, mode=mode, context=tuple(context), rules=selection.select)
    if selection.ignore:
        findings = [f for f in findings if f.rule not in selection.ignore]
    return findings


def fix_cell(source: str, *, mode: str, context: Sequence[str], selection: Selection) -> str:
    """``source`` with the safe fixes of the selected, not ignored, rules."""
    return analyzer.fix(source, mode=mode, context=tuple(context), rules=selection.fix_rules())
