"""``msnb run NOTEBOOK [-o OUT] [--timeout S]``: execute a notebook headless with msnb."""

from __future__ import annotations

import argparse
import sys

from msnb.cli._common import fail

__all__ = ["HELP", "add_arguments", "run"]

HELP = "execute a notebook headless (nbclient) with msnb loaded; exit 1 on the first failing cell"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("notebook", metavar="NOTEBOOK", help="the .ipynb notebook to run")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the executed notebook to OUT")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds each cell may run (default: 600; 0 for no limit)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every cell ran, 1 on a failing cell (its traceback on stderr), 2 for a bad notebook."""
    from msnb.migration import InputError, run_notebook

    try:
        result = run_notebook(args.notebook, args.output, timeout=args.timeout or None,
                              progress=False if args.no_progress else None)
    except InputError as exc:
        return fail("run", str(exc))
    if result.out is not None:
        print(f"msnb run: wrote {result.out}", file=sys.stderr)
    if result.ok:
        print(f"msnb run: {result.cells_run} cell(s) ran in {result.seconds:.1f} s", file=sys.stderr)
        return 0
    if result.traceback:
        print(result.traceback, file=sys.stderr)
    where = f"cell {result.failed_cell}" if result.failed_cell else "setup"
    return fail("run", f"{args.notebook}: {where} failed: {result.error}", 1)
