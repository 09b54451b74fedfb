"""The ``msnb`` command: ``exec``, ``scan``, ``migrate``, ``run`` and ``support``.

Subcommands are registered in :data:`COMMANDS` as ``name -> (add_arguments,
run)``, so others can add ``scan``, ``migrate`` or ``run`` without touching
:func:`main`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from msnb.cli import exec_cmd, launch_cmd, migrate_cmd, run_cmd, scan_cmd, support_cmd

__all__ = ["COMMANDS", "build_parser", "main"]

#: name -> (help, add_arguments(parser), run(args) -> exit code)
COMMANDS: dict[str, tuple[str, Callable, Callable]] = {
    "exec": (exec_cmd.HELP, exec_cmd.add_arguments, exec_cmd.run),
    "scan": (scan_cmd.HELP, scan_cmd.add_arguments, scan_cmd.run),
    "migrate": (migrate_cmd.HELP, migrate_cmd.add_arguments, migrate_cmd.run),
    "run": (run_cmd.HELP, run_cmd.add_arguments, run_cmd.run),
    "support": (support_cmd.HELP, support_cmd.add_arguments, support_cmd.run),
    "launch": (launch_cmd.HELP, launch_cmd.add_arguments, launch_cmd.run),
}


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per entry of COMMANDS."""
    parser = argparse.ArgumentParser(prog="msnb", description="Run PyTorch code on MindSpore.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, add_arguments, run) in COMMANDS.items():
        # argparse %-formats help strings (not descriptions): '%load_ext' must be '%%load_ext' there
        sub = subparsers.add_parser(name, help=help_text.replace("%", "%%"), description=help_text)
        add_arguments(sub)
        sub.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``msnb`` console script and ``python -m msnb``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] != ["exec"]:  # a script run by ``msnb exec`` keeps every import it may need
        from msnb.migration._startup import skip_unused_imports

        skip_unused_imports()
    args = build_parser().parse_args(argv)
    return args.run(args)
