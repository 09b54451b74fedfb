"""``msnb exec [--mode M] [--amp L] [--device D] [--verbose] [--report FILE] SCRIPT [ARGS...]``,
or ``msnb exec [FLAGS] -m MODULE [ARGS...]`` (``-m torch.distributed.run`` and ``torchrun``: msnb's torchrun)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from msnb.settings import CHOICES

__all__ = ["HELP", "add_arguments", "run"]

HELP = "run a Python script as `python SCRIPT ARGS...` would, with torch on MindSpore"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Same flags as ``%%torch_on_ascend``, placed before the script name."""
    parser.add_argument("--mode", choices=CHOICES["mode"], help="MindSpore execution mode")
    parser.add_argument("--amp", choices=CHOICES["amp"], help="automatic mixed precision level")
    parser.add_argument("--device", choices=CHOICES["device"], help="auto, cpu or ascend")
    parser.add_argument("--verbose", action="store_true", default=None, help="show MindSpore logs")
    parser.add_argument("--report", metavar="FILE",
                        help="write what the run did (mode, graphs compiled, compile and step time, fallbacks) "
                             "to FILE as JSON")
    parser.add_argument("--profile", dest="profile", action="store_const", const="calls",
                        help="after the run, print a table of the torch calls made (calls, time, where each "
                             "ran) to stderr")
    parser.add_argument("--profile=lines", dest="profile", action="store_const", const="lines",
                        help="the same table and the time of each line of SCRIPT")
    parser.add_argument("--compare", nargs="?", const="table", choices=("table", "json"),
                        help="also run the script under real PyTorch in another process and print where the "
                             "numbers differ (=json: also write msnb-compare.json)")
    parser.add_argument("-m", dest="module", nargs=argparse.REMAINDER, metavar="MODULE ARGS",
                        help="run a module as `python -m MODULE ARGS` does (torch.* modules are msnb's: "
                             "-m torch.distributed.run is torchrun on MindSpore's msrun)")
    parser.add_argument("script", nargs="?", help="the Python file to run (`torchrun` means -m torch.distributed.run)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")


def run(args: argparse.Namespace) -> int:
    """Run the script; its SystemExit (exit code) propagates unchanged."""
    from msnb.runtime import Runtime, report
    from msnb.runtime.context import DeviceError
    from msnb.runtime.script import MODULE_COMMANDS, run_module, run_script

    if args.script in MODULE_COMMANDS and not os.path.isfile(args.script):
        args.module = [MODULE_COMMANDS[args.script], *args.args]
    if args.module is not None:
        if not args.module:
            print("msnb exec: argument -m: expected a module name", file=sys.stderr)
            return 2
        if getattr(args, "compare", None) or getattr(args, "profile", None):
            print("msnb exec: --compare and --profile take a script, not -m MODULE", file=sys.stderr)
            return 2
    elif args.script is None:
        print("msnb exec: a script (or -m MODULE) is required", file=sys.stderr)
        return 2
    elif not os.path.isfile(args.script):
        print(f"msnb exec: can't open file {args.script!r}: no such file", file=sys.stderr)
        return 2
    runtime = Runtime(say=lambda line: print(line, file=sys.stderr))
    options = runtime.options(mode=args.mode, amp=args.amp, device=args.device, verbose=args.verbose)
    run = report.record_start(options)
    error = None
    try:
        if args.module is not None:
            run_module(runtime, args.module[0], args.module[1:], options)
        elif getattr(args, "compare", None):
            if getattr(args, "profile", None):
                print("msnb exec: --compare and --profile cannot be combined", file=sys.stderr)
                return 2
            from msnb.compare import run_script_compared
            run_script_compared(runtime, args.script, args.args, options, args.compare)
        else:
            run_script(runtime, args.script, args.args, options, profile=getattr(args, "profile", None))
    except DeviceError as exc:
        print(f"msnb exec: {exc}", file=sys.stderr)
        error = exc
        return 2
    except (SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # printed as `python SCRIPT` would, from the script's first frame
        error = exc
        if options["verbose"]:
            raise
        from msnb.runtime.tracebacks import as_torch_error, format_user_exception

        start = args.script if args.module is None else None
        print(format_user_exception(as_torch_error(exc), start), end="", file=sys.stderr)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    finally:
        report.record_finish(run, error if not isinstance(error, SystemExit) or error.code else None)
        if args.report:
            with open(args.report, "w", encoding="utf-8") as f:
                json.dump(run.as_dict(), f, indent=1)
    return 0
