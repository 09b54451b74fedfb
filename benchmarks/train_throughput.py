"""LeNet training throughput, side by side in one run (issue #4 point 9, #6 point 7).

Runners, each in its own process, interleaved over ``--rounds``:
  torch_eager         the unchanged PyTorch source, real PyTorch
  mindspore_pynative  the hand-written MindSpore step (value_and_grad + nn.SGD)
  msnb_pynative       the unchanged PyTorch source through ``msnb exec``
  mindspore_graph     the hand-written step under ``ms.jit``
  msnb_graph          the unchanged PyTorch source through ``msnb exec --mode graph``
  msnb_graph_O1..O3   the same, with ``--amp O1|O2|O3`` (images/s per AMP level in graph mode)
Prints images/s (median over rounds), ratios, peak RSS and, for msnb's graph
runners, the one-time compile seconds (from ``msnb exec --report``);
``--json`` prints ``{"runners": {name: images_per_s}, ...}``.  Not a test:
nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent / "_lenet"
PY = sys.executable


def commands(steps, warmup, batch):
    t = str(HERE / "torch_train.py")
    m = str(HERE / "mindspore_train.py")
    args = [str(steps), str(warmup), str(batch)]
    return {
        "torch_eager": [PY, t, *args],
        "mindspore_pynative": [PY, m, *args, "pynative"],
        "msnb_pynative": [PY, "-m", "msnb", "exec", t, *args],
        "mindspore_graph": [PY, m, *args, "graph"],
        "msnb_graph": [PY, "-m", "msnb", "exec", "--mode", "graph", "--report", "{report}", t, *args],
        **{f"msnb_graph_{lv}": [PY, "-m", "msnb", "exec", "--mode", "graph", "--amp", lv, "--report", "{report}",
                                t, *args] for lv in ("O1", "O2", "O3")},
    }


def run(cmd):
    env = dict(os.environ, GLOG_v="3")
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [report if c == "{report}" else c for c in cmd]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
        line = next((ln for ln in reversed(res.stdout.splitlines()) if ln.startswith("{")), None)
        if res.returncode != 0 or line is None:
            return {"error": (res.stderr or res.stdout).strip().splitlines()[-1:] or ["failed"]}
        out = json.loads(line)
        if os.path.exists(report):
            with open(report, encoding="utf-8") as f:
                rep = json.load(f)
            out.update(compile_s=rep["compile_time"], graphs=rep["graphs_compiled"], fallbacks=rep["fallbacks"])
        return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--runners", default="torch_eager,mindspore_pynative,msnb_pynative,mindspore_graph,msnb_graph")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    cmds = commands(a.steps, a.warmup, a.batch)
    names = [n for n in a.runners.split(",") if n]
    results = {n: [] for n in names}
    for r in range(a.rounds):
        for n in names:
            results[n].append(run(cmds[n]))
    summary, rss, errors, compiles = {}, {}, {}, {}
    for n, rs in results.items():
        ok = [x for x in rs if "images_per_s" in x]
        if ok:
            summary[n] = statistics.median(x["images_per_s"] for x in ok)
            rss[n] = max(x["peak_rss_mb"] for x in ok)
            if "compile_s" in ok[0]:
                compiles[n] = {"seconds": statistics.median(x["compile_s"] for x in ok),
                               "graphs": ok[0]["graphs"], "fallbacks": ok[0]["fallbacks"]}
        else:
            errors[n] = rs[0].get("error")
    ratios = {}
    for a_, b_ in [("msnb_pynative", "mindspore_pynative"), ("msnb_pynative", "torch_eager"),
                   ("msnb_graph", "mindspore_graph"), ("msnb_graph", "torch_eager")]:
        if a_ in summary and b_ in summary:
            ratios[f"{a_}/{b_}"] = summary[a_] / summary[b_]
    if "msnb_pynative" in rss and "mindspore_pynative" in rss:
        ratios["rss msnb_pynative/mindspore_pynative"] = rss["msnb_pynative"] / rss["mindspore_pynative"]
    if a.json:
        print(json.dumps({"runners": summary, "ratios": ratios, "peak_rss_mb": rss, "errors": errors,
                          "compile": compiles}))
        return 0
    from msnb.runtime.context import launch_mode
    launch = launch_mode("CPU", len(os.sched_getaffinity(0)), os.environ.get("MSNB_LAUNCH", "auto"))
    print(f"LeNet 3x32x32, batch {a.batch}, {a.steps} steps after {a.warmup} warm-up, {a.rounds} rounds, "
          f"{os.cpu_count()} cores; msnb runners launch kernels {launch} (MindSpore runners: its default)")
    for n in names:
        if n in summary:
            print(f"  {n:20s} {summary[n]:9.1f} images/s   peak RSS {rss[n]:7.0f} MB")
        else:
            print(f"  {n:20s} failed: {errors[n]}")
    for k, v in ratios.items():
        print(f"  {k:45s} {v:6.2f}x")
    for n, c in compiles.items():
        fb = f", fallbacks: {c['fallbacks']}" if c["fallbacks"] else ""
        print(f"  {n:20s} compiled {c['graphs']} graphs once in {c['seconds']:.1f} s{fb}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
