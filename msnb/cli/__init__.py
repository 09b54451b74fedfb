"""The ``msnb`` command: ``msnb exec SCRIPT [ARGS...]`` (more subcommands later).

Subcommands are registered in :data:`COMMANDS` as ``name -> (add_arguments,
run)``, so others can add ``scan``, ``migrate`` or ``run`` without touching
:func:`main`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from msnb.cli import exec_cmd, launch_cmd

__all__ = ["COMMANDS", "build_parser", "main"]

#: name -> (help, add_arguments(parser), run(args) -> exit code)
COMMANDS: dict[str, tuple[str, Callable, Callable]] = {
    "exec": (exec_cmd.HELP, exec_cmd.add_arguments, exec_cmd.run),
    "launch": (launch_cmd.HELP, launch_cmd.add_arguments, launch_cmd.run),
}


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per entry of COMMANDS."""
    parser = argparse.ArgumentParser(prog="msnb", description="Run PyTorch code on MindSpore.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, add_arguments, run) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        add_arguments(sub)
        sub.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``msnb`` console script and ``python -m msnb``."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return args.run(args)
