"""``msnb support [--format markdown|json] [NAME]``: the support registry, or one API."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["HELP", "add_arguments", "run"]

HELP = "print msnb's support list of torch / torchvision APIs, or whether one API is supported"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="one API, e.g. torch.nn.Linear, nn.Linear, F.relu, Tensor.view")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown",
                        help="output format (default: markdown)")


def run(args: argparse.Namespace) -> int:
    """Exit 0; with NAME, exit 1 when the API is not supported."""
    from msnb.adapter.support import to_markdown
    from msnb.migration.support_query import lookup, registry_entries

    if args.name is None:
        reg = registry_entries()
        sys.stdout.write(json.dumps(reg, indent=1) + "\n" if args.format == "json" else to_markdown(reg))
        return 0
    status = lookup(args.name)
    if args.format == "json":
        sys.stdout.write(json.dumps(status.to_dict(), indent=1) + "\n")
    else:
        note = f": {status.note}" if status.note else ""
        extra = "" if status.pytorch_api or status.status != "unsupported" else " (not a PyTorch API name either)"
        print(f"`{status.name}`: {status.status}{note}{extra}")
    return 0 if status.status != "unsupported" else 1
