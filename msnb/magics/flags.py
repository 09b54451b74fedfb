"""Flag declarations shared by ``%%torch_on_ascend`` and ``%torch_on_ascend``.

Declared once with IPython's ``magic_arguments``; ``--help`` prints the usage
text generated from these declarations.
"""

from __future__ import annotations

import textwrap
from typing import Any, Callable

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from msnb.settings import CHOICES

__all__ = ["declare_flags", "parse_flags", "usage_text", "compare_flag", "nproc_flag"]

_FLAGS = (
    argument("-h", "--help", action="store_true", help="show this help and do nothing else"),
    argument("--mode", choices=CHOICES["mode"], help="MindSpore execution mode (default: pynative)"),
    argument("--amp", choices=CHOICES["amp"], help="automatic mixed precision level (default: O0)"),
    argument(
        "--device",
        choices=CHOICES["device"],
        help="auto picks Ascend when MindSpore can use it, else CPU (default: auto)",
    ),
    argument("--verbose", action="store_true", default=None, help="show MindSpore's own log lines"),
    argument(
        "--no-analyze",
        dest="analyze",
        action="store_false",
        default=None,
        help="do not run msnb's analyzer on the cell first",
    ),
    argument("--ignore", metavar="CODES", default=None,
             help="analyzer rule codes to ignore, comma-separated (e.g. MSN201,MSN301)"),
    argument(
        "--profile",
        nargs="?",
        const="calls",
        choices=("calls", "lines"),
        default=None,
        help="after the cell, a table of its torch calls: calls, time, where each ran; "
        "--profile=lines adds per-line times",
    ),
    argument(
        "--compare",
        nargs="?",
        const="table",
        choices=("table", "json"),
        default=None,
        help="also run the cell under real PyTorch in another process and show where the numbers differ "
        "(=json: also write the full table to msnb-compare.json)",
    ),
    argument(
        "--nproc",
        type=int,
        metavar="N",
        default=None,
        help="run the cell as a script on N worker processes (MindSpore's msrun, torchrun's environment); "
        "each rank's output is shown prefixed [rank k]",
    ),
)


def declare_flags(func: Callable) -> Callable:
    """Apply the flag declarations and generate the usage docstring."""
    for flag in reversed(_FLAGS):
        func = flag(func)
    return magic_arguments()(func)


def parse_flags(magic: Callable, line: str) -> tuple[bool, dict[str, Any]]:
    """Return (help requested, {setting: value or None}); UsageError if bad."""
    try:
        args = parse_argstring(magic, line)
    except ValueError as exc:  # shlex: a quote left open in the magic line
        raise UsageError(f"cannot read the magic line {line.strip()!r}: {exc}") from None
    flags = {name: getattr(args, name) for name in ("mode", "amp", "device", "verbose", "analyze", "profile")}
    if args.ignore is not None:
        flags["ignore"] = ignore_codes(args.ignore)
    return args.help, flags


def ignore_codes(text: str) -> tuple[str, ...]:
    """Rule codes from ``"MSN201,MSN301"`` (also space-separated); a one-line
    UsageError names an unknown code."""
    from IPython.core.error import UsageError

    from msnb.analyzer.engine import resolve_codes

    try:
        return tuple(sorted(resolve_codes(text.replace(" ", ","))))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def usage_text(func: Callable, name: str | None = None) -> str:
    """``func``'s generated docstring as plain ``--help`` text: IPython's usage
    block starts with a reST literal-block marker (``::``) and is indented;
    both are dropped and it reads ``usage: NAME ...`` as argparse prints it."""
    text = textwrap.dedent((func.__doc__ or "").replace("::\n", "", 1)).strip("\n")
    head, _, rest = text.partition("\n\n")
    first, *more = (line.strip() for line in head.splitlines())
    name = name or first.split()[0]
    first = name + first[first.index(" "):] if " " in first else name
    indent = "\n" + " " * (len("usage: ") + len(name) + 1)
    return "usage: " + indent.join([first, *more]) + "\n\n" + rest


def compare_flag(magic: Callable, line: str) -> str | None:
    """``--compare`` as given: None, ``"table"`` or ``"json"``."""
    return parse_argstring(magic, line).compare


def nproc_flag(magic: Callable, line: str) -> int | None:
    """``--nproc N`` as given (None when absent); UsageError below 1."""
    n = parse_argstring(magic, line).nproc
    if n is not None and n < 1:
        raise UsageError(f"--nproc must be at least 1, got {n}")
    return n
