"""How loud the analyzer is on real programs: findings per severity, and how
many a notebook shows by default.

    python benchmarks/analyzer_programs.py [--mode pynative|graph] PATH...

Each ``.py`` file is analyzed as one cell; each ``.ipynb`` notebook cell by
cell, code cells in order, with the earlier cells as context (as the magic
does).  Prints, per file and in total, errors / warnings / infos, and the
findings shown by default (errors and warnings; advice only with
``%msnb analyze --all``).  An ``error`` on a program that runs under msnb is
a false alarm.  The programs are not part of this repository: point the
script at your own checkouts (e.g. pytorch/examples, NYU-DLSP20).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msnb.analyzer as analyzer  # noqa: E402


def _cells(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        out = []
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "code":
                src = cell.get("source", "")
                out.append("".join(src) if isinstance(src, list) else src)
        return out
    return [path.read_text(encoding="utf-8")]


def analyze_program(path: Path, mode: str) -> tuple[Counter, int, list[str]]:
    counts: Counter = Counter()
    shown = 0
    shown_lines: list[str] = []
    earlier: list[str] = []
    show = getattr(analyzer, "visible", None)
    for i, src in enumerate(_cells(path)):
        found = analyzer.analyze(src, mode=mode, context=tuple(earlier))
        counts.update(str(f.severity) for f in found)
        visible = show(found) if show else found  # before `visible` existed every finding was shown
        shown += len(visible)
        shown_lines += [f"  cell {i + 1} {f.line}:{f.col} {f.rule} {f.severity}: {f.message}" for f in visible]
        earlier.append(src)
    return counts, shown, shown_lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("pynative", "graph"), default="pynative")
    ap.add_argument("--list", action="store_true", help="also list the findings shown by default")
    ap.add_argument("paths", nargs="+", type=Path)
    args = ap.parse_args(argv)
    total: Counter = Counter()
    total_shown = 0
    print(f"mode {args.mode}")
    print(f"{'program':<40} {'errors':>7} {'warnings':>9} {'infos':>6} {'shown':>6}")
    for path in args.paths:
        counts, shown, lines = analyze_program(path, args.mode)
        total.update(counts)
        total_shown += shown
        print(f"{path.name:<40} {counts['error']:>7} {counts['warning']:>9} {counts['info']:>6} {shown:>6}")
        if args.list:
            print("\n".join(lines))
    print(f"{'total':<40} {total['error']:>7} {total['warning']:>9} {total['info']:>6} {total_shown:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
