"""Training does not accumulate memory on msnb's side (issue #13 point 5).

A child process trains the benchmark's small MLP with Adam
(``benchmarks/memory_growth.py``) and measures between step 50 and step
200: Python heap growth (``tracemalloc``), growth of gc-tracked object
counts, and RSS.  msnb's own graph nodes, optimizer state, metadata and
hooks must not pile up: the Python heap may grow < 1 MB and object counts
< 300.  RSS is bounded loosely (< 50 KB/step): MindSpore 2.10's own kernels
leak natively (plain ``mindspore.ops.sum`` ~2 KB per call, ``matmul``
~1 KB: ``benchmarks/memory_growth.py --ops``), about 25 KB per step of this MLP,
which msnb cannot free; a leak of msnb's own would exceed that bound.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

CHILD = r"""
import gc, json, sys, tracemalloc
sys.path.insert(0, sys.argv[1])
import psutil
import mindspore as ms
from msnb.runtime.context import set_launch
from benchmarks.memory_growth import make_step
set_launch(ms, "CPU")
step = make_step()
def counts():
    gc.collect()
    return len(gc.get_objects())
for _ in range(50):
    step()
tracemalloc.start()
step().item()
c0, h0, r0 = counts(), tracemalloc.get_traced_memory()[0], psutil.Process().memory_info().rss
for _ in range(150):
    loss = step()
loss.item()
c1, h1, r1 = counts(), tracemalloc.get_traced_memory()[0], psutil.Process().memory_info().rss
print(json.dumps({"objects": c1 - c0, "heap": h1 - h0, "rss_per_step": (r1 - r0) / 150}))
"""


def test_training_memory_does_not_grow_on_msnb_side():
    env = dict(os.environ, PYTHONPATH=str(REPO), GLOG_v="3")
    out = subprocess.run([sys.executable, "-c", CHILD, str(REPO)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["heap"] < 2 ** 20, got
    assert got["objects"] < 300, got
    assert got["rss_per_step"] < 50 * 1024, got
