"""msnb implementation of ``torch.distributed.run`` (what ``torchrun`` and
``python -m torch.distributed.run`` start): torchrun's flags, on MindSpore's
``msrun`` through msnb's launcher.

Inside ``msnb exec`` (``msnb exec -m torch.distributed.run --nproc-per-node 2
train.py``) the workers run with the same mode, AMP level and device as the
``msnb exec`` that started them.
"""

from __future__ import annotations

import sys

__all__ = ["main", "get_args_parser", "parse_args", "run"]


def get_args_parser():
    """torchrun's argument parser (msnb's flags: see ``msnb launch --help``)."""
    from msnb.runtime import torchrun
    return torchrun.parser()


def parse_args(args):
    return get_args_parser().parse_args(args)


def _exec_flags() -> list:
    from msnb.runtime.context import active
    ctx = active()
    return [] if ctx is None else ["--mode", ctx.mode, "--amp", ctx.amp, "--device", ctx.device]


def run(args) -> int:
    """Run the job described by ``args`` (a parsed namespace); the job's exit code."""
    from msnb.runtime import torchrun
    return torchrun.run(args, "torchrun", _exec_flags())


def main(args=None) -> None:
    """``torchrun [FLAGS] SCRIPT [ARGS...]``: exits with the job's exit code, as torchrun does."""
    code = run(parse_args(sys.argv[1:] if args is None else args))
    if code:
        sys.exit(code)


if __name__ == "__main__":
    main()
