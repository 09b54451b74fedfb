"""``msnb scan PATH... [--format F] [-o FILE] [--fail-on S]``: a migration report."""

from __future__ import annotations

import argparse
import sys

from msnb.cli._common import add_rule_options, codes, fail

__all__ = ["HELP", "add_arguments", "run"]

HELP = "report the torch APIs, their msnb support and the analyzer findings of notebooks, scripts and folders"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from msnb.migration.formats import FORMATS, SEVERITIES  # light: argument parsing must stay cheap

    parser.add_argument("paths", nargs="+", metavar="PATH", help=".ipynb or .py files, or folders")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--fail-on", choices=(*SEVERITIES, "never"), default="info",
                        help="exit 1 when a finding is at least this severe (default: info, any finding)")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_rule_options(parser)


def run(args: argparse.Namespace) -> int:
    """Exit 0 clean, 1 findings at or above --fail-on, 2 unreadable input or bad options."""
    from msnb.analyzer.config import ConfigError
    from msnb.migration.atomic import atomic_write
    from msnb.migration.formats import render
    from msnb.migration.scan import scan_paths

    try:
        report = scan_paths(args.paths, select=codes(args.select), ignore=codes(args.ignore), mode=args.mode,
                            jobs=args.jobs, progress=False if args.no_progress else None)
    except ConfigError as exc:
        return fail("scan", str(exc))
    text = render(report, args.format)
    if args.output:
        try:
            atomic_write(args.output, text)
        except OSError as exc:
            return fail("scan", f"{args.output}: cannot write the report ({exc.strerror or exc})")
    else:
        sys.stdout.write(text)
    for f in report.errors:
        print(f"msnb scan: {f.path}: {f.error}", file=sys.stderr)
    return report.exit_code(args.fail_on)
