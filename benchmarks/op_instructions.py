"""Instructions per op (callgrind): msnb's adapter against the same MindSpore ops.

``op_overhead.py`` times the cases; on a shared 2-core host its ratios move by
several percent between runs, as much as the overhead being measured.  This
counts the instructions each call executes instead (every thread, MindSpore's
kernels included), which does not depend on the load: the same code gives the
same count to within a few hundred instructions per call.  The cases are
``op_overhead.py``'s (imported from it), each run under valgrind's callgrind
with counting switched on only around the timed calls (a small C helper built
here with the callgrind client requests), after warm-up calls so that Python's
specializing interpreter and MindSpore's caches are in their steady state.

``python benchmarks/op_instructions.py [--cases add_1k,chain_10] [--calls 50]``;
``--checkouts /work/main .`` runs it once per msnb checkout (before/after).
Needs valgrind and a C compiler with ``valgrind/callgrind.h``.  Slow: the
MindSpore import runs uninstrumented, but each counted call runs ~50x slower
(2-5 minutes for the whole set on a quiet 2-core host).  Not a test: nothing
here asserts.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

_HELPER = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void cg_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
"""
#: calls counted per case (cases of milliseconds per call get fewer)
_FEW = {"add_1M": 3, "matmul_256": 3, "mlp_step": 2}


def _build_helper(where: str) -> str:
    src, lib = os.path.join(where, "cg.c"), os.path.join(where, "libcg.so")
    with open(src, "w") as f:
        f.write(_HELPER)
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def _child(lib: str, names: list[str] | None, calls: int) -> None:
    import ctypes
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import op_overhead
    from msnb.runtime.context import set_launch
    set_launch(op_overhead.ms, op_overhead.ms.get_context("device_target"))
    cg = ctypes.CDLL(lib)
    cases = {k: v for k, v in op_overhead.cases().items() if names is None or k in names}
    for adapter, direct in cases.values():
        for _ in range(3):
            adapter(), direct()
    cg.cg_start()
    for name, (adapter, direct) in cases.items():
        n = min(calls, _FEW.get(name, calls))
        for side, fn in (("msnb", adapter), ("mindspore", direct)):
            for _ in range(3):  # warm again, now instrumented
                fn()
            cg.cg_zero()
            cg.cg_toggle()
            for _ in range(n):
                out = fn()
            out.asnumpy()
            cg.cg_toggle()
            cg.cg_dump(f"{name}|{side}|{n}".encode())


def _parse(out_dir: str) -> dict:
    got = {}
    for path in glob.glob(os.path.join(out_dir, "cg.out.*")):
        with open(path, errors="replace") as f:
            text = f.read(1 << 16)
        m = re.search(r"Client Request: (\S+)\|(\S+)\|(\d+)", text)
        s = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if m and s:
            got.setdefault(m.group(1), {})[m.group(2)] = int(s.group(1)) / int(m.group(3))
    return got


def measure(names: list[str] | None, calls: int, pythonpath: str | None = None) -> dict:
    """``{case: {"msnb": instructions per call, "mindspore": ...}}``, one valgrind run."""
    if shutil.which("valgrind") is None:
        raise SystemExit("op_instructions.py needs valgrind (callgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        lib = _build_helper(tmp)
        env = dict(os.environ, GLOG_v="3")
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
               f"--callgrind-out-file={tmp}/cg.out.%p", sys.executable, os.path.abspath(__file__),
               "--child", lib, "--calls", str(calls)] + (["--cases", ",".join(names)] if names else [])
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return _parse(tmp)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", help="comma-separated op_overhead.py case names (default: all)")
    p.add_argument("--calls", type=int, default=50)
    p.add_argument("--checkouts", nargs="+", metavar="DIR", help="msnb checkouts to compare, one run each")
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", metavar="LIB", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    names = a.cases.split(",") if a.cases else None
    if a.child:
        _child(a.child, names, a.calls)
        return 0
    paths = a.checkouts or [None]
    rows = {path: measure(names, a.calls, os.path.abspath(path) if path else None) for path in paths}
    if a.json:
        print(json.dumps({str(k): v for k, v in rows.items()}))
        return 0
    print("instructions per call (callgrind, all threads), msnb / MindSpore by hand")
    print(f"  {'case':17s} " + "  ".join(f"{os.path.basename(os.path.abspath(q)) if q else 'this':>34s}"
                                         for q in paths))
    for case in rows[paths[0]]:
        cells = []
        for q in paths:
            r = rows[q].get(case, {})
            if "msnb" in r and "mindspore" in r:
                cells.append(f"{r['msnb']:>11,.0f} / {r['mindspore']:>11,.0f} = {r['msnb'] / r['mindspore']:5.3f}x")
            else:
                cells.append("-")
        print(f"  {case:17s} " + "  ".join(f"{c:>34s}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
