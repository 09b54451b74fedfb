"""``[tool.msnb]`` in ``pyproject.toml``: project-wide rule selection.

    [tool.msnb]
    select = ["MSN101", "MSN401"]   # only these rules (default: every default rule)
    ignore = ["MSN301"]             # never report these

The file is the nearest ``pyproject.toml`` from a notebook's or script's
folder upward (as Ruff finds its configuration).  Rule codes and names are
checked against the analyzer's rule list: a typo is a :class:`ConfigError`
naming the file, never a silently ignored rule.  Unknown keys are errors
too, so ``selct = [...]`` does not quietly do nothing.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

__all__ = ["Config", "ConfigError", "find_pyproject", "load_config", "config_for", "validate_codes",
           "known_codes", "KEYS"]

#: Keys ``[tool.msnb]`` accepts.
KEYS = ("select", "ignore")


class ConfigError(ValueError):
    """A bad ``[tool.msnb]`` table or an unknown rule code; one-line message."""


@dataclass(frozen=True)
class Config:
    """Rule selection read from one ``pyproject.toml`` (or the defaults)."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    path: Path | None = None


def known_codes() -> dict[str, str]:
    """Every accepted spelling (code or rule name) -> rule code; includes the
    engine's own ``MSN000`` (syntax) and ``MSN001`` (internal error)."""
    from msnb.analyzer.rules import ALL_RULES

    out = {"MSN000": "MSN000", "MSN001": "MSN001"}
    for rule in ALL_RULES:
        out[rule.CODE] = rule.CODE
        out[rule.NAME] = rule.CODE
    return out


def validate_codes(codes: Iterable[str], *, where: str) -> tuple[str, ...]:
    """``codes`` as rule codes (names mapped to codes, case of codes
    ignored); :class:`ConfigError` listing the unknown ones."""
    known = known_codes()
    out, unknown = [], []
    for raw in codes:
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: rule codes must be strings, got {raw!r}")
        code = raw.strip()
        code = known.get(code) or known.get(code.upper())
        if code is None:
            unknown.append(raw)
        elif code not in out:
            out.append(code)
    if unknown:
        raise ConfigError(f"{where}: unknown rule code(s) {', '.join(map(repr, unknown))} "
                          "(see docs/rules.md for the list)")
    return tuple(out)


def find_pyproject(start: str | Path) -> Path | None:
    """The nearest ``pyproject.toml`` in ``start`` (a file's folder) or above."""
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


@functools.lru_cache(maxsize=64)
def _load_cached(path: Path, mtime: float) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    table = data.get("tool", {}).get("msnb", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.msnb] must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [tool.msnb]: {', '.join(unknown)} "
                          f"(known: {', '.join(KEYS)})")
    values = {}
    for key in KEYS:
        if key in table:
            value = table[key]
            if isinstance(value, str) or not isinstance(value, list):
                raise ConfigError(f"{path}: [tool.msnb] {key} must be a list of rule codes, got {value!r}")
            values[key] = validate_codes(value, where=f"{path}: [tool.msnb] {key}")
    return Config(select=values.get("select"), ignore=values.get("ignore", ()), path=path)


def load_config(path: str | Path) -> Config:
    """``[tool.msnb]`` of the ``pyproject.toml`` at ``path``."""
    path = Path(path).resolve()
    return _load_cached(path, path.stat().st_mtime)


def config_for(start: str | Path) -> Config:
    """The configuration that applies to a file or folder: the nearest
    ``pyproject.toml``'s ``[tool.msnb]``, or the defaults when there is none."""
    found = find_pyproject(start)
    return load_config(found) if found is not None else Config()
