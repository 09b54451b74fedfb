"""Options and error reporting shared by ``msnb scan`` and ``msnb migrate``."""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_rule_options", "codes", "fail"]


def codes(values: list[str] | None) -> list[str] | None:
    """``--select A,B --select C`` -> ``["A", "B", "C"]`` (None when absent)."""
    if values is None:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--select``, ``--ignore`` (merged with ``[tool.msnb]``) and ``--mode``."""
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="only these rule codes, comma separated (replaces [tool.msnb] select)")
    parser.add_argument("--ignore", action="append", metavar="CODES",
                        help="never report these rule codes (added to [tool.msnb] ignore)")
    parser.add_argument("--mode", choices=("pynative", "graph"),
                        help="analyze every cell for this mode (default: each cell's own --mode)")


def fail(command: str, message: str, code: int = 2) -> int:
    """Print ``msnb COMMAND: message`` on stderr and return ``code``."""
    print(f"msnb {command}: {message}", file=sys.stderr)
    return code
