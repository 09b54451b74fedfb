"""First-cell latency after ``%load_ext msnb`` in a real kernel (issue #21 point 6).

For each setting, in a fresh kernel (jupyter_client), interleaved over
``--rounds``: run ``%load_ext msnb``, wait ``--pause`` seconds (a person typing
the next cell), then time a first ``%%torch_on_ascend`` cell from the execute
request to the reply.  Settings: ``preload`` (MindSpore imported in the
background from ``%load_ext``, the default) and ``no_preload``
(``MSNB_PRELOAD=0``: the first cell imports MindSpore itself).  Prints seconds
(median), the ratio and the load average.  Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CELL = "%%torch_on_ascend\nimport torch\nx = torch.ones(2) * 2\nprint(x.tolist())"


def one(env_extra, pause, timeout=600):
    from jupyter_client import KernelManager
    km = KernelManager(kernel_name="python3")
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    km.start_kernel(env={**os.environ, "GLOG_v": "3", "PYTHONPATH": path, **env_extra})
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        quiet = lambda msg: None  # noqa: E731
        client.execute_interactive("%load_ext msnb", timeout=timeout, output_hook=quiet)
        time.sleep(pause)
        t0 = time.perf_counter()
        reply = client.execute_interactive(CELL, timeout=timeout, output_hook=quiet)
        dt = time.perf_counter() - t0
        return dt if reply["content"]["status"] == "ok" else None
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pause", type=float, default=5.0, help="seconds between %%load_ext and the first cell")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    settings = {"preload": {}, "no_preload": {"MSNB_PRELOAD": "0"}}
    got = {k: [] for k in settings}
    loads = [os.getloadavg()[0]]
    for _ in range(a.rounds):
        for name, env in settings.items():
            got[name].append(one(env, a.pause))
            loads.append(os.getloadavg()[0])
    med = {k: statistics.median([x for x in v if x is not None]) for k, v in got.items() if any(v)}
    out = {"first_cell_s": med, "runs": got, "pause_s": a.pause,
           "load_avg_1min": {"min": min(loads), "max": max(loads)}}
    if "preload" in med and "no_preload" in med:
        out["speedup"] = med["no_preload"] / med["preload"]
    if a.json:
        print(json.dumps(out))
        return 0
    print(f"first %%torch_on_ascend cell, {a.pause:.0f} s after %load_ext msnb, {a.rounds} round(s), "
          f"load average {min(loads):.1f}-{max(loads):.1f}")
    for k, v in med.items():
        print(f"  {k:12s} {v:6.2f} s")
    if "speedup" in out:
        print(f"  no_preload/preload {out['speedup']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
