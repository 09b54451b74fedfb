"""LeNet training throughput, side by side in one run (issue #4 point 9, #6 point 7).

The LeNet workload of the benchmark suite (``benchmarks/suite.py --workloads
lenet``: batch 128, 3x32x32, SGD with momentum), with the AMP levels of graph
mode as extra runners.  Runners, each in its own process, interleaved over
``--rounds``: torch_eager, mindspore_pynative, mindspore_graph, msnb_pynative,
msnb_graph, and msnb_graph_O1..O3 (``--amp O1|O2|O3``).  Prints images/s, step
and CPU time, compile seconds, peak RSS and the ratios; ``--json`` prints the
suite's JSON.  Not a test: nothing here asserts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suite  # noqa: E402


def main(argv=None):
    import argparse
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--runners", default=",".join(suite.RUNNERS))
    p.add_argument("--item", choices=("each", "end"), default="end",
                   help="read loss.item() every step or only at the end (default: end)")
    p.add_argument("--json", action="store_true")
    a, rest = p.parse_known_args(argv)
    args = ["--workloads", "lenet", "--runners", a.runners, "--steps", str(a.steps), "--warmup", str(a.warmup),
            "--rounds", str(a.rounds), "--item", a.item, *(["--json"] if a.json else []), *rest]
    return suite.main(args)


if __name__ == "__main__":
    sys.exit(main())
