"""msnb's Python-side cost per op, with MindSpore's PyBoost functions stubbed.

``op_overhead.py`` times whole ops; on a shared 2-core host its ratios move by
a few percent from run to run, more than the Python work msnb adds to a small
op (well under 1 us on a ~20 us add).  Here every PyBoost function the cases
reach is replaced, in this process only and before msnb binds its kernels, by
one stub that hands back a fresh plain ``mindspore.Tensor`` made beforehand:
msnb's path (``x + y``) and the same hand-written MindSpore call
(``ops.add(a, b)``) run the same stub, so the difference is the Python each
side runs around the kernel.  Each case is timed in alternating short rounds;
the 10th percentile of the rounds is reported (the rounds the host did not
interrupt).  Not a test: nothing here asserts; ``--checkouts`` compares msnb
checkouts, each in its own process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402

_POOL: list = []
_STUBBED = ("add", "mul", "sub", "div", "exp", "neg", "abs", "sqrt", "relu", "not_equal", "select", "isnan",
            "matmul_ext")


def _stub(prim, args):
    return _POOL.pop()


def _cases():
    import mindspore as ms
    from mindspore.ops.auto_generate import gen_ops_prim
    for name in _STUBBED:  # before msnb reads them (it binds PyBoost functions at import)
        setattr(gen_ops_prim, "pyboost_" + name, _stub)
    import msnb.adapter.torch as torch

    x, m = np.ones((4,), np.float32), np.ones((4, 4), np.float32)
    ta, tb, ma, mb = torch.tensor(x), torch.tensor(x), ms.Tensor(x), ms.Tensor(x)
    tm, mm = torch.tensor(m), ms.Tensor(m)
    for t in (ta, tb, tm):
        t.dtype  # recorded, as on every op result
    return {
        "x + y": (lambda: ta + tb, lambda: ms.ops.add(ma, mb)),
        "x * 2.0": (lambda: ta * 2.0, lambda: ms.ops.mul(ma, 2.0)),
        "x / 2.0": (lambda: ta / 2.0, lambda: ms.ops.div(ma, 2.0)),
        "x.exp()": (lambda: ta.exp(), lambda: ms.ops.exp(ma)),
        "x.relu()": (lambda: ta.relu(), lambda: ms.ops.select(ms.mint.isnan(ma), ma, ms.ops.relu(ma))),
        "a @ b": (lambda: tm @ tm, lambda: ms.ops.matmul(mm, mm)),
    }, ms


def measure(rounds: int, calls: int) -> dict:
    cases, ms = _cases()
    x = np.ones((4,), np.float32)

    def run(fn):
        _POOL[:] = [ms.Tensor(x) for _ in range(3 * calls)]  # (relu's MindSpore side makes 3)
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - start) / calls * 1e9

    out = {}
    for name, (adapter, direct) in cases.items():
        ta, td = [], []
        for i in range(rounds):
            if i % 2:
                td.append(run(direct))
                ta.append(run(adapter))
            else:
                ta.append(run(adapter))
                td.append(run(direct))
        ta.sort()
        td.sort()
        out[name] = {"msnb_ns": ta[rounds // 10], "mindspore_ns": td[rounds // 10]}
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--calls", type=int, default=50)
    p.add_argument("--json", action="store_true")
    p.add_argument("--checkouts", nargs="+", metavar="DIR", help="compare msnb checkouts, each in its own process")
    a = p.parse_args(argv)
    if a.checkouts:
        rows = {}
        for path in a.checkouts:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--json", "--rounds", str(a.rounds),
                                "--calls", str(a.calls)], env=env, check=True, capture_output=True, text=True)
            rows[path] = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"msnb minus MindSpore, Python side (ns per op, kernels stubbed), load {os.getloadavg()[0]:.1f}")
        print(f"  {'case':10s} " + "  ".join(f"{os.path.basename(os.path.abspath(c)):>12s}" for c in a.checkouts))
        for name in rows[a.checkouts[0]]:
            cells = [rows[c][name]["msnb_ns"] - rows[c][name]["mindspore_ns"] for c in a.checkouts]
            print(f"  {name:10s} " + "  ".join(f"{v:12.0f}" for v in cells))
        return 0
    res = measure(a.rounds, a.calls)
    if a.json:
        print(json.dumps(res))
        return 0
    for name, r in res.items():
        print(f"  {name:10s} msnb {r['msnb_ns']:7.0f} ns  MindSpore {r['mindspore_ns']:7.0f} ns  "
              f"difference {r['msnb_ns'] - r['mindspore_ns']:6.0f} ns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
