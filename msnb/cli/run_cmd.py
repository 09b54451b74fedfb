"""``msnb run NOTEBOOK [-o OUT] [--timeout S]``: execute a notebook headless with msnb;
``msnb run --nproc-per-node N [TORCHRUN FLAGS] SCRIPT.py [ARGS...]``: a script on N workers, as ``torchrun``."""

from __future__ import annotations

import argparse
import sys

from msnb.cli._common import fail
from msnb.runtime import torchrun

__all__ = ["HELP", "add_arguments", "run"]

HELP = ("execute a notebook headless (nbclient) with msnb loaded, exit 1 on the first failing cell; or, given a "
        "script, run it on --nproc-per-node workers as torchrun does (same as msnb launch)")


def _notebook_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="OUT", help="write the executed notebook to OUT")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds each cell may run (default: 600; 0 for no limit)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _notebook_options(parser)
    torchrun.add_exec_flags(parser)
    torchrun.add_arguments(parser, script=False)
    parser.add_argument("target", metavar="NOTEBOOK|SCRIPT",
                        help="the notebook, or the script (a .py file) to run on the workers")
    parser.add_argument("args", nargs=argparse.REMAINDER,
                        help="a script's arguments (a notebook's -o/--timeout may also come here)")


def run(args: argparse.Namespace) -> int:
    """A script: the job's exit code.  A notebook: 0 when every cell ran, 1 on a failing cell (its
    traceback on stderr), 2 for a bad notebook."""
    if args.target.endswith(".py"):
        args.script = args.target
        return torchrun.run(args, "run")
    if args.args:  # ``msnb run nb.ipynb -o out.ipynb``: the notebook's options after its name
        again = argparse.ArgumentParser(prog="msnb run NOTEBOOK")
        _notebook_options(again)
        args = again.parse_args(args.args, namespace=args)
    from msnb.migration import InputError, run_notebook

    try:
        result = run_notebook(args.target, args.output, timeout=args.timeout or None,
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
    return fail("run", f"{args.target}: {where} failed: {result.error}", 1)
