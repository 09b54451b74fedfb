"""Where the suite's time goes: CPU seconds per test file (a pytest plugin and its report).

The host's load inflates wall times, so this records, for every test (setup, call
and teardown together), its wall seconds and the CPU seconds of the test process
and of the children it waited for (subprocesses, kernels, servers), one JSON line
per test in ``$MSNB_TEST_TIMES/times-<worker>.jsonl``; collection is one more line.

    PYTHONPATH=.ci MSNB_TEST_TIMES=/tmp/times GLOG_v=3 .venv/bin/python -m pytest \\
        -p pytest_cpu_times -n 2 --dist loadscope
    python .ci/pytest_cpu_times.py /tmp/times     # per file (OpInfo shards apart), most CPU first
"""

from __future__ import annotations

import collections
import glob
import json
import os
import resource
import sys
import time

import pytest

__all__ = ["pytest_configure", "pytest_collection_finish", "pytest_runtest_protocol", "report"]

_out = None


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _write(row: dict) -> None:
    global _out
    if _out is None:
        folder = os.environ.get("MSNB_TEST_TIMES", ".")
        os.makedirs(folder, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _out = open(os.path.join(folder, f"times-{worker}.jsonl"), "a", encoding="utf-8")
    _out.write(json.dumps(row) + "\n")
    _out.flush()


def pytest_configure(config):
    config._msnb_t0 = (time.time(), *_cpu())


def pytest_collection_finish(session):
    t0, me0, kids0 = session.config._msnb_t0
    me, kids = _cpu()
    _write({"id": "<collection>", "start": t0, "wall": time.time() - t0, "self": me - me0, "child": kids - kids0})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    t0 = time.time()
    me0, kids0 = _cpu()
    yield
    me, kids = _cpu()
    _write({"id": item.nodeid, "start": t0, "wall": time.time() - t0, "self": me - me0, "child": kids - kids0})


def report(folder: str) -> str:
    """Per file: CPU (self + children), wall, test count and worker; totals last."""
    per = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, set()])
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "times-*.jsonl"))):
        worker = os.path.basename(path)[len("times-"):-len(".jsonl")]
        for row in map(json.loads, open(path, encoding="utf-8")):
            if row["id"].startswith("<"):
                lines.append(f"collection on {worker}: {row['self']:.1f} s CPU, {row['wall']:.1f} s wall")
                continue
            parts = row["id"].split("::")
            key = "::".join(parts[:2]) if "opinfo_replay" in parts[0] and len(parts) > 2 else parts[0]
            p = per[key]
            p[0] += 1
            p[1] += row["wall"]
            p[2] += row["self"]
            p[3] += row["child"]
            p[4].add(worker)
    total = [0.0, 0.0, 0.0]
    for key, (n, wall, me, kids, workers) in sorted(per.items(), key=lambda kv: -(kv[1][2] + kv[1][3])):
        total = [total[0] + me + kids, total[1] + kids, total[2] + wall]
        lines.append(f"{me + kids:8.1f} s CPU ({kids:7.1f} in children) {wall:8.1f} s wall {n:5d} tests "
                     f"{','.join(sorted(workers))}  {key}")
    lines.append(f"total {total[0]:.0f} s CPU ({total[1]:.0f} in children), {total[2]:.0f} s wall in tests")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MSNB_TEST_TIMES", ".")))
