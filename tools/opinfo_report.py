"""Replay PyTorch's OpInfo / ModuleInfo samples through msnb and report the figures.

    python tools/opinfo_report.py            # full replay, human-readable summary
    python tools/opinfo_report.py --json     # the same figures as JSON
    python tools/opinfo_report.py --write    # also write msnb/adapter/opinfo_results.json
    python tools/opinfo_report.py --limit 2 --only softmax
    python tools/opinfo_report.py --errors-only            # PyTorch's error inputs (bad arguments)
    python tools/opinfo_report.py --write-expected-errors  # ... and rewrite their expected mismatches
    python tools/opinfo_report.py --extremal               # samples holding NaN / inf / -0.0
    python tools/opinfo_report.py --write-expected-extremal  # ... as the tests replay them, rewriting their list

Cases run in a child process, so that a case that kills the interpreter
(a native crash) is recorded as such and the replay goes on.  Needs the
``test`` extra (torch 2.13, expecttest).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "msnb" / "adapter" / "opinfo_results.json"

#: seconds a worker may spend on one sample (or one error input) before it is stopped and
#: the sample recorded as a "timeout" failure; the worker's start (imports, building the
#: case list) gets STARTUP_TIMEOUT
SAMPLE_TIMEOUT = 60.0
STARTUP_TIMEOUT = 600.0


def _worker(limit, keys_file):
    """Child: read case keys from ``keys_file``, print one JSON line per case."""
    from msnb.adapter import opinfo as O
    op_db, module_db = O.load_dbs()
    cases = {c.key: c for c in O.op_cases(op_db) + O.module_cases(module_db)}
    print(json.dumps({"ready": True}), flush=True)
    for line in Path(keys_file).read_text().splitlines():
        key = line.strip()
        if not key:
            continue
        c = cases[key]
        print(json.dumps({"begin": key}), flush=True)

        def progress(i, why):
            print(json.dumps({"sample": i} if why is None else {"sample_done": i, "why": why}), flush=True)
        r = O.run_case(c, limit=O.suite_limit(c) if limit == "suite" else limit, progress=progress)
        print(json.dumps({"key": key, "passed": r.passed, "failed": r.failed, "failures": r.failures}),
              flush=True)
    return 0


def _error_worker(keys_file):
    """Child: replay the error inputs named in ``keys_file``, one JSON line per case."""
    from msnb.adapter import opinfo as O
    from msnb.adapter import opinfo_errors as E
    cases = {c.key: c for c in E.error_cases(O.load_dbs()[0])}
    print(json.dumps({"ready": True}), flush=True)
    for key in filter(None, (ln.strip() for ln in Path(keys_file).read_text().splitlines())):
        print(json.dumps({"begin": key}), flush=True)
        out = E.run_error_case(cases[key])
        row = out.as_dict()
        row["expected"] = "" if out.matches else E.mismatch_reason(out)
        print(json.dumps(row), flush=True)
    return 0


def _extremal_worker(limit, keys_file):
    """Child: replay the extremal variants of the cases named in ``keys_file``."""
    from msnb.adapter import opinfo as O
    from msnb.adapter import opinfo_extremal as X
    cases = {c.key: c for c in X.extremal_cases(O.load_dbs()[0])}
    print(json.dumps({"ready": True}), flush=True)
    for key in filter(None, (ln.strip() for ln in Path(keys_file).read_text().splitlines())):
        print(json.dumps({"begin": key}), flush=True)
        if limit == "suite":
            r = X.run_extremal_case(cases[key], limit=X.SUITE_LIMIT, variants=X.SUITE_VARIANTS)
        else:
            r = X.run_extremal_case(cases[key], limit=int(limit) if limit else None)
        print(json.dumps({"key": key, "passed": r.passed, "failed": r.failed, "refused": r.refused,
                          "failures": r.failures}), flush=True)
    return 0


def replay_extremal(limit=None, only=(), progress=True):
    """Every float32 case's samples with extremal values, in child processes that may die.
    ``limit="suite"``: the cases, samples and variants ``tests/adapter/opinfo/test_extremal_values.py``
    replays (each op's primary form, one sample, ``mixed``)."""
    from msnb.adapter import opinfo as O
    from msnb.adapter import opinfo_extremal as X
    cases = X.extremal_cases(O.load_dbs()[0])
    if limit == "suite":
        cases = X.suite_cases(cases)
    keys = [c.key for c in cases if not only or any(o in c.key for o in only)]
    extra = ["--limit", str(limit)] if limit else []
    return _supervise(keys, "--extremal-worker", extra, "extremal replay", progress,
                      lambda key, why: {"key": key, "passed": 0, "failed": 1, "refused": 0,
                                        "failures": [["0/all", why]]})


def summarize_extremal(results):
    """Ops (primary form) passing every evaluated extremal variant, of those evaluated (a case is
    evaluated when torch accepted at least one variant of a floating sample)."""
    forms = collections.defaultdict(dict)
    for key, r in results.items():
        op, form, _ = key.split(":")
        forms[op][form] = r
    primary = {op: f.get("function", f.get("method")) for op, f in forms.items()}
    primary = {op: r for op, r in primary.items() if r is not None and r["passed"] + r["failed"] > 0}
    failing = {op: r["failures"][0][1] for op, r in sorted(primary.items()) if r["failed"]}
    reasons = collections.Counter(_norm_reason(r["failures"][0][1]) for r in primary.values() if r["failed"])
    return {"ops": {"pass": len(primary) - len(failing), "evaluated": len(primary)},
            "variants": {"pass": sum(r["passed"] for r in results.values()),
                         "evaluated": sum(r["passed"] + r["failed"] for r in results.values()),
                         "refused_by_torch": sum(r.get("refused", 0) for r in results.values())},
            "not_evaluated": sorted(set(forms) - set(primary)),
            "top_reasons": reasons.most_common(15), "failing_ops": failing}


def print_extremal_summary(s):
    print(f"ops passing the extremal replay (primary form, float32): {_pct(s['ops']['pass'], s['ops']['evaluated'])}")
    v = s["variants"]
    print(f"sample variants passing: {_pct(v['pass'], v['evaluated'])} (torch refused {v['refused_by_torch']})")
    print(f"ops not evaluated (no floating sample, or torch refused every variant): {len(s['not_evaluated'])}")
    print("failing ops (first failure):")
    for op, why in s["failing_ops"].items():
        print(f"  {op}: {why}")


EXPECTED_EXTREMAL = REPO / "tests" / "adapter" / "opinfo" / "expected_extremal_failures.py"
_EXPECTED_EXTREMAL_HEAD = '''"""Cases of the extremal-value replay (NaN / inf / signed zeros) known to fail, each with why.

Like PyTorch's ``xfail`` decorators, in one place: ``test_extremal_values`` fails when a
case listed here passes (remove the entry) or when a case not listed fails.  Keys are
``"<op>[.<variant>]:<form>:float32"``; the reason is the first failing sample and extremal
variant (``<sample index>/mixed``) and its message.  Regenerate with
``python tools/opinfo_report.py --write-expected-extremal`` after fixing ops.
"""

__all__ = ["EXPECTED_EXTREMAL_FAILURES"]

EXPECTED_EXTREMAL_FAILURES = {
'''


def write_expected_extremal(results):
    rows = [f"    {k!r}: {(r['failures'][0][0] + ': ' + r['failures'][0][1])!r},"
            for k, r in results.items() if r["failed"]]
    EXPECTED_EXTREMAL.write_text(_EXPECTED_EXTREMAL_HEAD + "\n".join(rows) + ("\n" if rows else "") + "}\n",
                                 encoding="utf-8")


def _extremal_main(a):
    if a.write_expected_extremal:
        if a.only:
            raise SystemExit("--write-expected-extremal replays every case: drop --only")
        a.limit = "suite"
    elif a.limit not in (None, "suite"):
        a.limit = int(a.limit)
    t0 = time.time()
    results = replay_extremal(a.limit, a.only)
    if a.write_expected_extremal:
        write_expected_extremal(results)
    return _print_figures(a, t0, results, summarize_extremal, print_extremal_summary)


def _print_figures(a, t0, results, summarize_fn, print_fn):
    """Summarize ``results``, save them raw if asked, print the figures (as JSON if asked)."""
    s = summarize_fn(results)
    s["seconds"] = round(time.time() - t0, 1)
    if a.raw:
        a.raw.write_text(json.dumps(results, indent=1) + "\n")
    if a.json:
        print(json.dumps(s, indent=1))
    else:
        print_fn(s)
        print(f"({s['seconds']} s)")
    return 0


def replay_errors(only=(), progress=True):
    """Every OpInfo error input through msnb, each in a child process that may die."""
    from msnb.adapter import opinfo as O
    from msnb.adapter import opinfo_errors as E
    keys = [c.key for c in E.error_cases(O.load_dbs()[0]) if not only or any(o in c.key for o in only)]
    return _supervise(keys, "--errors-worker", [], "error inputs", progress,
                      lambda key, why: {"key": key, "op": key.rsplit(":error:", 1)[0], "status": "other",
                                        "raised": "crash", "message": why, "regex": False, "reason": why,
                                        "expected": f"msnb {why}"})


def summarize_errors(results):
    """The error-replay figures: cases by outcome, and ops whose every error input matches."""
    rows = list(results.values())
    status = collections.Counter(r["status"] for r in rows)
    by_op = collections.defaultdict(list)
    for r in rows:
        by_op[r["op"]].append(r["status"] == "same")
    other = collections.Counter(r["raised"] for r in rows if r["status"] == "other")
    return {"cases": len(rows), "same": status["same"],
            "same_and_regex": sum(1 for r in rows if r["status"] == "same" and r["regex"]),
            "returned": status["returned"], "other": status["other"], "not_replayable": status["not_replayable"],
            "ops": len(by_op), "ops_all_same": sum(all(v) for v in by_op.values()),
            "other_types": other.most_common()}


def print_error_summary(s):
    print(f"error inputs replayed: {s['cases']} ({s['ops']} ops)")
    print(f"  same exception type as PyTorch: {_pct(s['same'], s['cases'])}")
    print(f"    and PyTorch's error_regex matches msnb's message: {_pct(s['same_and_regex'], s['cases'])}")
    print(f"  returned a value: {s['returned']}")
    print(f"  raised another type: {s['other']} " + ", ".join(f"{k} {n}" for k, n in s["other_types"]))
    print(f"  not replayable: {s['not_replayable']}")
    print(f"ops matching on every error input: {_pct(s['ops_all_same'], s['ops'])}")


EXPECTED_ERRORS = REPO / "tests" / "adapter" / "opinfo" / "expected_error_mismatches.py"
_EXPECTED_ERRORS_HEAD = '''"""OpInfo error inputs on which msnb does not raise PyTorch's exception type (with a
message PyTorch's ``error_regex`` matches), each with why.

Like PyTorch's ``xfail`` decorators, in one place: ``test_error_inputs``
fails when a case listed here matches (remove the entry) or when a case not
listed does not.  Keys are ``"<op>[.<variant>]:error:<index>"`` (the index in
``op.error_inputs("cpu")``); the reason says what PyTorch raises and what msnb
did.  Regenerate with ``python tools/opinfo_report.py --write-expected-errors``
after fixing ops.
"""

__all__ = ["EXPECTED_ERROR_MISMATCHES"]

EXPECTED_ERROR_MISMATCHES = {
'''


def write_expected_errors(results):
    rows = [f"    {k!r}: {r['expected']!r}," for k, r in results.items()
            if not (r["status"] == "same" and r["regex"])]
    EXPECTED_ERRORS.write_text(_EXPECTED_ERRORS_HEAD + "\n".join(rows) + ("\n" if rows else "") + "}\n",
                               encoding="utf-8")


def _list_cases(only, suite=False):
    from msnb.adapter import opinfo as O
    op_db, module_db = O.load_dbs()
    out = []
    cases = O.op_cases(op_db) + O.module_cases(module_db)
    for c in O.suite_cases(cases) if suite else cases:
        if only and not any(o in c.key for o in only):
            continue
        out.append({"key": c.key, "name": c.name, "form": c.form, "dtype": c.dtype, "namespace": c.namespace,
                    "op": c.key.split(":")[0]})
    return out


def replay(limit=None, only=(), progress=True, timeout=SAMPLE_TIMEOUT):
    """Run every case in child processes; returns {key: result dict} in case order.
    ``limit="suite"``: the cases and sample counts ``tests/adapter/opinfo`` replays."""
    meta = _list_cases(only, suite=limit == "suite")
    extra = ["--limit", str(limit)] if limit else []
    results = _supervise([m["key"] for m in meta], "--worker", extra, "opinfo replay", progress,
                         lambda key, why: {"key": key, "passed": 0, "failed": 1, "failures": [[0, why]]},
                         timeout=timeout)
    return meta, results


def _lines(proc):
    """A queue receiving the child's stdout lines (None at its end), read on a helper thread
    so that the supervisor can wait on it with a timeout."""
    import queue
    import threading
    q = queue.Queue()

    def pump():
        for line in proc.stdout:
            q.put(line)
        q.put(None)
    threading.Thread(target=pump, daemon=True).start()
    return q


def _partial(key, samples, why):
    """A case's result from the samples that finished before the child died or was stopped,
    plus the failure ``why`` for the sample it was on."""
    done = [(i, w) for i, w in samples if w is not None]
    failures = [[i, w] for i, w in done if w] + [[samples[-1][0] if samples and samples[-1][1] is None
                                                  else len(done), why]]
    return {"key": key, "passed": sum(1 for _, w in done if not w), "failed": len(failures),
            "failures": failures}


def _supervise(todo, worker_flag, extra, desc, progress, crashed, timeout=SAMPLE_TIMEOUT):
    """Feed case keys to ``--worker``-style children, one JSON line back per case; a case
    during which the child dies, or which spends over ``timeout`` s on one sample, is recorded
    as ``crashed(key, reason)`` (with the samples that finished, for an op case) and a new
    child goes on with the rest."""
    import queue
    from tqdm import tqdm
    todo = list(todo)
    results: dict[str, dict] = {}
    bar = tqdm(total=len(todo), desc=desc, disable=not progress, file=sys.stderr)
    env = dict(os.environ, GLOG_v="3",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    keys = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    keys.close()
    while todo:
        Path(keys.name).write_text("\n".join(todo) + "\n")
        args = [sys.executable, __file__, worker_flag, keys.name] + extra
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env, cwd=str(REPO))
        lines = _lines(proc)
        current, samples, ready, why = None, [], False, None
        while True:
            try:
                line = lines.get(timeout=timeout if ready else STARTUP_TIMEOUT)
            except queue.Empty:
                proc.kill()
                why = f"timeout: no sample finished in {timeout:g} s (the replay stopped this case)"
                break
            if line is None:
                break
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # stray output of an op
            if not isinstance(msg, dict):
                continue
            ready = True
            if "begin" in msg:
                current, samples = msg["begin"], []
            elif "sample" in msg:
                samples.append((msg["sample"], None))
            elif "sample_done" in msg:
                samples[-1:] = [(msg["sample_done"], msg["why"])]
            elif "key" in msg:
                results[msg["key"]] = msg
                todo.remove(msg["key"])
                current = None
                bar.update(1)
        rc = proc.wait()
        if current is not None:
            why = why or f"crash: the interpreter died (exit code {rc})"
            results[current] = _partial(current, samples, why) if samples else crashed(current, why)
            todo.remove(current)
            bar.update(1)
        elif todo:
            raise SystemExit(f"replay worker exited with code {rc} before any case ran")
    bar.close()
    os.unlink(keys.name)
    return results


def _norm_reason(r):
    r = re.sub(r"\(see the support list[^)]*\)", "", r)
    r = re.sub(r"at \([0-9, ]*\): msnb .* torch .*", "(values)", r)
    r = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", r)
    return r.strip()


def summarize(meta, results):
    """The report figures: ops / methods / modules passing fully, samples, namespaces, reasons."""
    by_op = collections.defaultdict(list)
    for m in meta:
        by_op[m["op"], m["form"]].append(m)

    def full(cases):
        return all(results[c["key"]]["failed"] == 0 and results[c["key"]]["passed"] > 0 for c in cases)

    ops = sorted({m["op"] for m in meta if m["form"] != "module"})
    primary = {}
    for op in ops:
        form = "function" if (op, "function") in by_op else "method"
        primary[op] = by_op[op, form]
    ops_pass = [op for op in ops if full(primary[op])]
    ops_pass32 = [op for op in ops if full([c for c in primary[op] if c["dtype"] == "float32"] or primary[op])]
    meth = [op for op in ops if (op, "method") in by_op]
    meth_pass = [op for op in meth if full(by_op[op, "method"])]
    mods = sorted({m["op"] for m in meta if m["form"] == "module"})
    mods_pass = [op for op in mods if full(by_op[op, "module"])]
    ns = collections.defaultdict(lambda: [0, 0])
    for op in ops:
        n = primary[op][0]["namespace"]
        ns[n][1] += 1
        ns[n][0] += op in ops_pass
    passed = sum(r["passed"] for r in results.values())
    total = passed + sum(r["failed"] for r in results.values())
    reasons = collections.Counter()
    for r in results.values():
        for _, why in r["failures"]:
            reasons[_norm_reason(why)] += 1
    bare = sum(1 for r in results.values() for _, why in r["failures"]
               if why.startswith("AttributeError") and "not supported by msnb" not in why)
    return {
        "ops": {"pass": len(ops_pass), "evaluated": len(ops), "pass_float32": len(ops_pass32)},
        "methods": {"pass": len(meth_pass), "evaluated": len(meth)},
        "modules": {"pass": len(mods_pass), "evaluated": len(mods)},
        "samples": {"pass": passed, "evaluated": total},
        "namespaces": {k: {"pass": v[0], "evaluated": v[1]} for k, v in sorted(ns.items())},
        "bare_attribute_errors": bare,
        "top_reasons": reasons.most_common(25),
        "failing_ops": sorted(set(ops) - set(ops_pass)),
        "failing_methods": sorted(set(meth) - set(meth_pass)),
        "failing_modules": sorted(set(mods) - set(mods_pass)),
    }


def _pct(a, b):
    return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else "0/0"


def print_summary(s):
    print(f"ops passing fully (primary form, all replayed dtypes): {_pct(s['ops']['pass'], s['ops']['evaluated'])}")
    print(f"ops passing fully (primary form, float32): {_pct(s['ops']['pass_float32'], s['ops']['evaluated'])}")
    print(f"method forms passing fully: {_pct(s['methods']['pass'], s['methods']['evaluated'])}")
    print(f"ModuleInfos passing fully: {_pct(s['modules']['pass'], s['modules']['evaluated'])}")
    print(f"samples passing: {_pct(s['samples']['pass'], s['samples']['evaluated'])}")
    print("by namespace: " + ", ".join(f"{k} {v['pass']}/{v['evaluated']}" for k, v in s["namespaces"].items()))
    print(f"failing samples with a bare AttributeError: {s['bare_attribute_errors']}")
    print("top failure reasons (samples):")
    for why, n in s["top_reasons"]:
        print(f"  {n:5d}  {why}")


def results_file(meta, results, summary):
    """What msnb.adapter.support reads: per public torch name, its sample counts and failures."""
    names: dict[str, dict] = {}
    for m in meta:
        r = results[m["key"]]
        e = names.setdefault(m["name"], {"passed": 0, "failed": 0, "failures": []})
        e["passed"] += r["passed"]
        e["failed"] += r["failed"]
        for i, why in r["failures"]:
            if len(e["failures"]) < 5:
                e["failures"].append(f"{m['key']} sample {i}: {why}")
    keep = {k: summary[k] for k in ("ops", "methods", "modules", "samples", "namespaces")}
    return {"version": 1, "torch": "2.13.0", "summary": keep, "names": dict(sorted(names.items()))}


EXPECTED = REPO / "tests" / "adapter" / "opinfo" / "expected_failures.py"
_EXPECTED_HEAD = '''"""Cases of the OpInfo replay that are known to fail, each with the reason.

Like PyTorch's ``xfail`` decorators, in one place: ``test_opinfo_replay``
fails when a case listed here passes (remove the entry) or when a case not
listed fails.  Keys are ``"<op>[.<variant>]:<form>:<dtype>"``; the reason is
the first failing sample's message.  Regenerate with
``python tools/opinfo_report.py --write-expected`` after fixing ops.
"""

__all__ = ["EXPECTED_FAILURES"]

EXPECTED_FAILURES = {
'''


def write_expected(results):
    """Rewrite the expected-failures file from a suite-limited replay."""
    rows = []
    for key, r in results.items():
        if r["failed"] or not r["passed"]:
            why = r["failures"][0][1] if r["failures"] else "no samples"
            rows.append(f"    {key!r}: {why!r},")
    EXPECTED.write_text(_EXPECTED_HEAD + "\n".join(rows) + ("\n" if rows else "") + "}\n", encoding="utf-8")


def main(argv=None):
    p = argparse.ArgumentParser(prog="tools/opinfo_report.py", description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--write", action="store_true", help=f"write {RESULTS.relative_to(REPO)}")
    p.add_argument("--limit", default=None,
                   help="samples per case (default: all; 'suite': as many as tests/adapter/opinfo replays)")
    p.add_argument("--write-expected", action="store_true",
                   help="replay as the test suite does and rewrite tests/adapter/opinfo/expected_failures.py")
    p.add_argument("--only", action="append", default=[], help="replay only case keys containing this")
    p.add_argument("--raw", type=Path, help="also save every case's result to this JSON file")
    p.add_argument("--errors-only", action="store_true",
                   help="replay PyTorch's error inputs (OpInfo error_inputs) instead of the samples")
    p.add_argument("--write-expected-errors", action="store_true",
                   help="replay the error inputs and rewrite tests/adapter/opinfo/expected_error_mismatches.py")
    p.add_argument("--extremal", action="store_true",
                   help="replay the float32 samples with NaN / inf / signed zeros written into them")
    p.add_argument("--write-expected-extremal", action="store_true",
                   help="replay the extremal samples as the tests do and rewrite "
                        "tests/adapter/opinfo/expected_extremal_failures.py")
    p.add_argument("--timeout", type=float, default=SAMPLE_TIMEOUT,
                   help="seconds one sample may take before its case is stopped and the sample "
                        f"recorded as a timeout failure (default {SAMPLE_TIMEOUT:g})")
    p.add_argument("--worker", metavar="KEYS_FILE", help=argparse.SUPPRESS)
    p.add_argument("--extremal-worker", metavar="KEYS_FILE", help=argparse.SUPPRESS)
    p.add_argument("--errors-worker", metavar="KEYS_FILE", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        return _worker(a.limit, a.worker)
    if a.errors_worker:
        return _error_worker(a.errors_worker)
    if a.extremal_worker:
        return _extremal_worker(a.limit, a.extremal_worker)
    if a.extremal or a.write_expected_extremal:
        return _extremal_main(a)
    if a.errors_only or a.write_expected_errors:
        return _errors_main(a)
    if a.limit not in (None, "suite"):
        a.limit = int(a.limit)
    if a.write_expected:
        a.limit = "suite"
    t0 = time.time()
    meta, results = replay(a.limit, a.only, timeout=a.timeout)
    if a.write_expected:
        write_expected(results)
    s = summarize(meta, results)
    s["seconds"] = round(time.time() - t0, 1)
    if a.raw:
        a.raw.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    if a.write:
        RESULTS.write_text(json.dumps(results_file(meta, results, s), indent=1) + "\n", encoding="utf-8")
    if a.json:
        print(json.dumps(s, indent=1))
    else:
        print_summary(s)
        print(f"({s['seconds']} s)")
    return 0


def _errors_main(a):
    t0 = time.time()
    results = replay_errors(a.only)
    if a.write_expected_errors:
        if a.only:
            raise SystemExit("--write-expected-errors replays every error input: drop --only")
        write_expected_errors(results)
    return _print_figures(a, t0, results, summarize_errors, print_error_summary)


if __name__ == "__main__":
    sys.exit(main())
