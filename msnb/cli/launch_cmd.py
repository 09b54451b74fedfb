"""``msnb launch --nproc-per-node N [TORCHRUN FLAGS] [EXEC FLAGS] SCRIPT [ARGS...]``: torchrun on MindSpore's msrun."""

from __future__ import annotations

import argparse

from msnb.runtime import torchrun

__all__ = ["HELP", "add_arguments", "run"]

HELP = "run a PyTorch script on N workers (torchrun's flags and environment) with torch on MindSpore, via msrun"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """torchrun's flags (both spellings), then ``msnb exec``'s, then the script."""
    torchrun.add_exec_flags(parser)
    torchrun.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Launch the job; the exit code is the first failing worker's (0 when all succeed)."""
    return torchrun.run(args, "launch")
