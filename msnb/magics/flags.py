"""Flag declarations shared by ``%%torch_on_ascend`` and ``%torch_on_ascend``.

Declared once with IPython's ``magic_arguments``; ``--help`` prints the usage
text generated from these declarations.
"""

from __future__ import annotations

from typing import Any, Callable

from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from msnb.settings import CHOICES

__all__ = ["declare_flags", "parse_flags", "compare_flag"]

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
    argument(
        "--compare",
        nargs="?",
        const="table",
        choices=("table", "json"),
        default=None,
        help="also run the cell under real PyTorch in another process and show where the numbers differ "
        "(=json: also write the full table to msnb-compare.json)",
    ),
)


def declare_flags(func: Callable) -> Callable:
    """Apply the flag declarations and generate the usage docstring."""
    for flag in reversed(_FLAGS):
        func = flag(func)
    return magic_arguments()(func)


def parse_flags(magic: Callable, line: str) -> tuple[bool, dict[str, Any]]:
    """Return (help requested, {setting: value or None}); UsageError if bad."""
    args = parse_argstring(magic, line)
    flags = {name: getattr(args, name) for name in ("mode", "amp", "device", "verbose", "analyze")}
    return args.help, flags


def compare_flag(magic: Callable, line: str) -> str | None:
    """``--compare`` as given: None, ``"table"`` or ``"json"``."""
    return parse_argstring(magic, line).compare
