"""``msnb migrate IN [-o OUT] [--style cell|session] [--no-fix] [--diff] [--in-place]``."""

from __future__ import annotations

import argparse
import sys

from msnb.cli._common import add_rule_options, codes, fail

__all__ = ["HELP", "add_arguments", "run"]

HELP = "write a copy of a notebook (or script) that runs on msnb: %load_ext, %%torch_on_ascend, safe fixes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN", help="the .ipynb notebook or .py script to migrate")
    parser.add_argument("-o", "--output", metavar="OUT", help="where to write (default: IN_msnb.ipynb / IN_msnb.py)")
    parser.add_argument("--style", choices=("cell", "session"), default="cell",
                        help="flags on every %%%%torch_on_ascend line (cell) or once in the setup cell (session)")
    parser.add_argument("--no-fix", action="store_true", help="do not apply the analyzer's safe fixes")
    parser.add_argument("--diff", action="store_true", help="print the changes, write nothing")
    parser.add_argument("--in-place", action="store_true", help="replace IN (a backup IN.bak is kept)")
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    add_rule_options(parser)


def run(args: argparse.Namespace) -> int:
    """Exit 0 when written (or diffed), 2 for a bad input, destination or rule code."""
    from msnb.analyzer.config import ConfigError
    from msnb.migration import InputError, migrate_path

    try:
        result = migrate_path(args.input, args.output, style=args.style, fix=not args.no_fix,
                              in_place=args.in_place, diff=args.diff, select=codes(args.select),
                              ignore=codes(args.ignore), mode=args.mode, force=args.force)
    except (InputError, ConfigError) as exc:
        return fail("migrate", str(exc))
    except OSError as exc:
        return fail("migrate", f"{getattr(exc, 'filename', '') or args.input}: cannot write "
                               f"({exc.strerror or exc}); nothing was changed")
    if args.diff:
        sys.stdout.write(result.diff)
    print(result.summary(), file=sys.stderr)
    if result.backup is not None:
        print(f"msnb migrate: backup of the input: {result.backup}", file=sys.stderr)
    for line in result.needs_human:
        print(f"  needs a human: {line}", file=sys.stderr)
    return 0
