"""``msnb launch --nproc-per-node N [EXEC FLAGS] SCRIPT [ARGS...]``: torchrun on MindSpore's msrun."""

from __future__ import annotations

import argparse
import sys

from msnb.settings import CHOICES

__all__ = ["HELP", "add_arguments", "run"]

HELP = "run a PyTorch script on N workers (torchrun's environment) with torch on MindSpore, via msrun"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """torchrun's flags (both spellings), then ``msnb exec``'s, then the script."""
    parser.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc", type=int, default=1,
                        metavar="N", help="number of worker processes on this machine")
    parser.add_argument("--master-port", "--master_port", dest="master_port", type=int, default=None,
                        help="port of msrun's scheduler (default: a free port)")
    parser.add_argument("--log-dir", dest="log_dir", default=None, help="keep msrun's worker logs here")
    parser.add_argument("--mode", choices=CHOICES["mode"], help="MindSpore execution mode")
    parser.add_argument("--amp", choices=CHOICES["amp"], help="automatic mixed precision level")
    parser.add_argument("--device", choices=CHOICES["device"], help="auto, cpu or ascend")
    parser.add_argument("script", help="the Python file to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")


def run(args: argparse.Namespace) -> int:
    """Launch the job; the exit code is the first failing worker's (0 when all succeed)."""
    from msnb.runtime.launch import launch

    forwarded = []
    for flag in ("mode", "amp", "device"):
        if getattr(args, flag, None):
            forwarded += [f"--{flag}", getattr(args, flag)]
    try:
        return launch(args.script, args.args, args.nproc, master_port=args.master_port,
                      exec_options=forwarded, log_dir=args.log_dir)
    except (FileNotFoundError, ValueError) as exc:
        print(f"msnb launch: {exc}", file=sys.stderr)
        return 2
