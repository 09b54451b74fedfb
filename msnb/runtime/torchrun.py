"""torchrun's command line on msnb's launcher: one parser for ``msnb launch``, ``msnb run SCRIPT``
and ``python -m torch.distributed.run`` / ``torchrun`` inside ``msnb exec``.

The flags are torchrun's (``--nproc-per-node``, ``--nnodes``, ``--node-rank``,
``--master-addr``, ``--master-port``, ``--standalone``, each also with
underscores); the job runs on MindSpore's ``msrun`` (:func:`msnb.runtime.launch.launch`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from msnb.settings import CHOICES

__all__ = ["add_arguments", "add_exec_flags", "parser", "run", "exec_options"]


def _count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _nnodes(text: str) -> int:
    """``--nnodes N`` (torchrun's elastic ``MIN:MAX`` only when MIN == MAX: msrun's jobs have a fixed size)."""
    low, _, high = text.partition(":")
    if high and low != high:
        raise argparse.ArgumentTypeError(f"--nnodes {text}: msrun runs a fixed number of machines (elastic "
                                         "MIN:MAX is not supported by msnb yet)")
    return _count(low)


def add_arguments(parser: argparse.ArgumentParser, script: bool = True) -> None:
    """torchrun's flags (both spellings); with ``script``, the script and its arguments after them."""
    parser.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc", type=_count, default=1,
                        metavar="N", help="number of worker processes on this machine (default: 1)")
    parser.add_argument("--nnodes", type=_nnodes, default=1, metavar="N", help="number of machines (default: 1)")
    parser.add_argument("--node-rank", "--node_rank", dest="node_rank", type=_count, default=0, metavar="K",
                        help="this machine's index, 0 .. nnodes-1 (default: 0)")
    parser.add_argument("--master-addr", "--master_addr", dest="master_addr", default=None, metavar="ADDR",
                        help="address of node 0, where msrun's scheduler runs (default: this machine)")
    parser.add_argument("--master-port", "--master_port", dest="master_port", type=_count, default=None,
                        metavar="PORT", help="port of msrun's scheduler (default: a free port)")
    parser.add_argument("--standalone", action="store_true",
                        help="one machine, scheduler on a free local port (--nnodes 1, no --master-*)")
    parser.add_argument("--log-dir", "--log_dir", dest="log_dir", default=None, help="keep msrun's worker logs here")
    if script:
        parser.add_argument("script", help="the Python file to run")
        parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")


def add_exec_flags(parser: argparse.ArgumentParser) -> None:
    """``msnb exec``'s flags given to every worker."""
    parser.add_argument("--mode", choices=CHOICES["mode"], help="MindSpore execution mode")
    parser.add_argument("--amp", choices=CHOICES["amp"], help="automatic mixed precision level")
    parser.add_argument("--device", choices=CHOICES["device"], help="auto, cpu or ascend")


def parser(prog: str = "torchrun") -> argparse.ArgumentParser:
    """torchrun's parser (what ``python -m torch.distributed.run`` reads)."""
    p = argparse.ArgumentParser(prog=prog, description="Run a PyTorch script on N workers with torch on "
                                "MindSpore (msnb, on MindSpore's msrun).")
    add_arguments(p)
    return p


def exec_options(args: argparse.Namespace) -> list[str]:
    """``--mode``/``--amp``/``--device`` from ``args`` as ``msnb exec`` flags."""
    forwarded = []
    for flag in ("mode", "amp", "device"):
        if getattr(args, flag, None):
            forwarded += [f"--{flag}", getattr(args, flag)]
    return forwarded


def run(args: argparse.Namespace, command: str = "launch", exec_flags: Sequence[str] | None = None) -> int:
    """Launch the job ``args`` describes; the first failing worker's exit code (0 when all succeed).
    Bad input (no such script, a bad count) prints ``msnb COMMAND: ...`` and returns 2."""
    from msnb.runtime.launch import launch

    nnodes, master_addr, master_port = args.nnodes, args.master_addr, args.master_port
    if args.standalone:
        if nnodes != 1:
            print(f"msnb {command}: --standalone runs on one machine (got --nnodes {nnodes})", file=sys.stderr)
            return 2
        master_addr = master_port = None
    try:
        return launch(args.script, args.args, args.nproc, master_port=master_port, master_addr=master_addr,
                      nnodes=nnodes, node_rank=args.node_rank, log_dir=args.log_dir,
                      exec_options=exec_options(args) if exec_flags is None else list(exec_flags))
    except (FileNotFoundError, ValueError) as exc:
        print(f"msnb {command}: {exc}", file=sys.stderr)
        return 2
