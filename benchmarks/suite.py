"""The benchmark suite: real training workloads, side by side in one run (issue #21).

Workloads (``--workloads``): ``lenet`` (batch 128, 3x32x32), ``mlp`` (batch 100,
784-256-128-10), ``lstm_lm`` (word LSTM language model, batch 20 x 35 tokens,
gradient clipping), ``transformer`` (2-layer encoder classifier, batch 32 x 32
tokens, Adam, clipping), ``resnet18`` (batch 16, 3x32x32, BatchNorm).

Runners (``--runners``), each in its own process, interleaved over ``--rounds``:
  torch_eager         the unchanged PyTorch loop, real PyTorch
  mindspore_pynative  the same step written by hand in MindSpore (value_and_grad + nn optimizer)
  mindspore_graph     that step under ``ms.jit``
  msnb_pynative       the unchanged PyTorch loop through ``msnb exec``
  msnb_graph          the same through ``msnb exec --mode graph`` (the automatic choice:
                      MSNB_GRAPH_CHOICE=auto)
  msnb_graph_compiled the same with the compiled step forced (MSNB_GRAPH_CHOICE=graph)
  msnb_graph_O1..O3   the same with ``--amp O1|O2|O3`` (not run by default)
``--msnb-path LABEL=DIR`` (repeatable) adds the msnb runners once more with
``PYTHONPATH=DIR`` (e.g. ``before=/work/main``): before/after on one host in one
run.  The training loop reads ``loss.item()`` every step (``--item each``, as
tutorials do) or only at the end (``--item end``).

Prints, per workload, images or tokens per second (median over rounds), step
time (both over the timed steps, after ``--warmup`` untimed ones: the steady state), the
wall time of the warm-up steps (msnb graph: its compile and automatic choice), the median step of the last third of the steps ("tail ms": msnb graph's
automatic choice is made by then), CPU time per step (all threads; steadier than wall time on a shared host), compile seconds (msnb graph: from ``msnb exec --report``; ``ms.jit``: warm-up
time beyond the steady steps), peak RSS, and the ratios; whether the form the automatic choice kept is the
faster of forced PyNative (msnb_pynative) and the forced graph (msnb_graph_compiled)
by their tail steps, and the automatic run's tail speed over the faster one; ``--json`` prints all of
it as one JSON object.  Not a test: nothing here asserts.
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

__all__ = ["WORKLOADS", "RUNNERS", "commands", "run", "summarize", "main"]

HERE = Path(__file__).resolve().parent / "_suite"
PY = sys.executable
WORKLOADS = ("lenet", "mlp", "lstm_lm", "transformer", "resnet18")
RUNNERS = ("torch_eager", "mindspore_pynative", "mindspore_graph", "msnb_pynative", "msnb_graph",
           "msnb_graph_compiled")
AMP_RUNNERS = tuple(f"msnb_graph_{lv}" for lv in ("O1", "O2", "O3"))
#: (numerator, denominator) runner pairs whose speed ratio is printed
PAIRS = (("msnb_graph", "msnb_pynative"), ("msnb_graph_compiled", "msnb_pynative"), ("msnb_pynative", "mindspore_pynative"),
         ("msnb_graph", "mindspore_graph"), ("mindspore_graph", "mindspore_pynative"),
         ("msnb_pynative", "torch_eager"), ("msnb_graph", "torch_eager"), ("mindspore_graph", "torch_eager"))
RSS_PAIRS = (("msnb_pynative", "mindspore_pynative"), ("msnb_graph", "mindspore_graph"),
             ("msnb_graph_compiled", "mindspore_graph"))
#: forced forms within this fraction of each other: either choice agrees (the host's noise)
TIE = 0.10
#: untimed first steps by default: what msnb graph mode's automatic choice needs before it runs the
#: form it keeps (graph/step.py: two observed steps, one warm PyNative step, the recorded step, one
#: warm replay, two timed pairs when the verdict is clear), so that the timed steps and "step ms"
#: are the steady state of every runner; the warm-up's wall time (compile and choice included) is
#: printed beside them as "warm-up s", and compile seconds on their own
WARMUP = 8


def commands(workload, steps, warmup, item, torch_script=None, ms_script=None):
    """``{runner: argv}`` for one workload; ``{report}`` is replaced by a report path."""
    t = str(torch_script or HERE / "torch_workloads.py")
    m = str(ms_script or HERE / "mindspore_workloads.py")
    args = [workload, str(steps), str(warmup), item]
    msnb = [PY, "-m", "msnb", "exec", "--report", "{report}"]
    return {
        "torch_eager": [PY, t, *args],
        "mindspore_pynative": [PY, m, *args, "pynative"],
        "mindspore_graph": [PY, m, *args, "graph"],
        "msnb_pynative": [*msnb, t, *args],
        "msnb_graph": ["env", "MSNB_GRAPH_CHOICE=auto", *msnb, "--mode", "graph", t, *args],
        "msnb_graph_compiled": ["env", "MSNB_GRAPH_CHOICE=graph", *msnb, "--mode", "graph", t, *args],
        **{f"msnb_graph_{lv}": [*msnb, "--mode", "graph", "--amp", lv, t, *args] for lv in ("O1", "O2", "O3")},
    }


def run(cmd, pythonpath=None, timeout=3600):
    """Run one runner process; its last JSON line, plus msnb's report figures, or ``{"error": ...}``."""
    env = dict(os.environ, GLOG_v="3")
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [report if c == "{report}" else c for c in cmd]
        try:
            # cwd: ``python -m msnb`` puts the working directory first on sys.path, so run from a
            # checkout it would import that checkout's msnb whatever PYTHONPATH says (--msnb-path)
            res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout} s"}
        line = next((ln for ln in reversed(res.stdout.splitlines()) if ln.startswith("{")), None)
        if res.returncode != 0 or line is None:
            return {"error": ((res.stderr or res.stdout).strip().splitlines() or ["failed"])[-1]}
        out = json.loads(line)
        said = [ln for ln in (res.stdout + res.stderr).splitlines() if "than PyNative on this host" in ln]
        if said:  # graph mode's per-step choice (graph/step.py): which form the timed steps ran
            out["graph_choice"] = "pynative" if "runs in PyNative" in said[0] else "graph"
        if os.path.exists(report):
            with open(report, encoding="utf-8") as f:
                rep = json.load(f)
            out.update(compile_s=rep.get("compile_time", 0.0), graphs=rep.get("graphs_compiled", 0),
                       fallbacks=rep.get("fallbacks", []))
        return out


def summarize(results, warmup):
    """Median figures per runner from ``{runner: [run results]}``, and the ratios."""
    rows, errors = {}, {}
    for n, rs in results.items():
        ok = [x for x in rs if "samples_per_s" in x]
        if not ok:
            errors[n] = next((x["error"] for x in rs if "error" in x), "no result")
            continue
        med = lambda k: statistics.median(x[k] for x in ok)  # noqa: E731
        row = {"samples_per_s": med("samples_per_s"), "unit": ok[0]["unit"], "step_ms": med("step_ms"),
               "tail_step_ms": med("tail_step_ms") if all("tail_step_ms" in x for x in ok) else None,
               "cpu_ms_per_step": med("cpu_ms_per_step") if all("cpu_ms_per_step" in x for x in ok) else None,
               "peak_rss_mb": max(x["peak_rss_mb"] for x in ok), "loss": ok[0]["loss"], "runs": len(ok),
               "warmup_s": med("first_steps_s")}
        if "compile_s" in ok[0] and ("graph" in n):
            row.update(compile_s=med("compile_s"), graphs=ok[0]["graphs"], fallbacks=ok[0]["fallbacks"],
                       graph_choice=[x.get("graph_choice") for x in ok])
        elif n.startswith("mindspore_graph"):  # ms.jit compiles in its first call
            row["compile_s"] = max(0.0, med("first_steps_s") - warmup * med("median_step_ms") / 1000)
        rows[n] = row
    ratios = {}
    labels = sorted({n.split("@", 1)[1] for n in rows if "@" in n})
    for suffix in ["", *[f"@{lb}" for lb in labels]]:
        for a, b in PAIRS:
            a_, b_ = a + suffix, (b + suffix if b.startswith("msnb") else b)
            if a_ in rows and b_ in rows:
                ratios[f"{a_}/{b_}"] = rows[a_]["samples_per_s"] / rows[b_]["samples_per_s"]
        for a, b in RSS_PAIRS:
            a_ = a + suffix
            if a_ in rows and b in rows:
                ratios[f"rss {a_}/{b}"] = rows[a_]["peak_rss_mb"] / rows[b]["peak_rss_mb"]
    for suffix in ["", *[f"@{lb}" for lb in labels]]:
        ratios.update(_choice_check(rows, suffix))
    for lb in labels:  # after over before
        for n in RUNNERS + AMP_RUNNERS:
            if n in rows and f"{n}@{lb}" in rows:
                ratios[f"{n}/{n}@{lb}"] = rows[n]["samples_per_s"] / rows[f"{n}@{lb}"]["samples_per_s"]
    return rows, ratios, errors


def _choice_check(rows, suffix=""):
    """Does the form msnb graph's automatic choice kept match the faster forced form (by tail
    steps, separate processes of the same run)?  ``{"choice ...": value}`` entries."""
    auto, pyn, comp = (rows.get(n + suffix) for n in ("msnb_graph", "msnb_pynative", "msnb_graph_compiled"))
    if not (auto and pyn and comp) or not all(x.get("tail_step_ms") for x in (auto, pyn, comp)):
        return {}
    speed = pyn["tail_step_ms"] / comp["tail_step_ms"]  # > 1: the forced graph is faster
    faster = "graph" if speed > 1 else "pynative"
    kept = [c for c in auto.get("graph_choice") or () if c]
    agrees = bool(kept) and (all(c == faster for c in kept) or abs(speed - 1) <= TIE)
    return {f"choice{suffix} kept": ",".join(kept) or "?", f"choice{suffix} faster forced": faster,
            f"choice{suffix} forced graph/pynative (tail)": speed, f"choice{suffix} agrees": agrees,
            f"choice{suffix} auto/faster forced (tail)": min(pyn["tail_step_ms"], comp["tail_step_ms"])
            / auto["tail_step_ms"]}


def _progress(total):
    try:
        from tqdm import tqdm
        return tqdm(total=total, desc="suite", unit="run", file=sys.stderr, leave=False)
    except ImportError:  # tqdm is a dependency of msnb; without it, no bar
        return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--runners", default=",".join(RUNNERS))
    p.add_argument("--steps", type=int, default=None, help="timed steps per run (default 20, --quick 6)")
    p.add_argument("--warmup", type=int, default=WARMUP,
                   help=f"untimed first steps, reported as 'warm-up s' (default {WARMUP}: msnb graph mode "
                        "compiles the step and makes its automatic choice in them)")
    p.add_argument("--rounds", type=int, default=None, help="runs per runner, interleaved (default 2, --quick 1)")
    p.add_argument("--item", choices=("each", "end"), default="each")
    p.add_argument("--quick", action="store_true", help="6 steps, 1 round: a short run")
    p.add_argument("--msnb-path", action="append", default=[], metavar="LABEL=DIR",
                   help="also run the msnb runners with PYTHONPATH=DIR, named RUNNER@LABEL")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", metavar="FILE", help="also write the JSON to FILE")
    a = p.parse_args(argv)
    steps = a.steps or (6 if a.quick else 20)
    rounds = a.rounds or (1 if a.quick else 2)
    workloads = [w for w in a.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            p.error(f"unknown workload {w!r} (choose from {', '.join(WORKLOADS)})")
    runners = [n for n in a.runners.split(",") if n]
    for n in runners:
        if n not in RUNNERS + AMP_RUNNERS:
            p.error(f"unknown runner {n!r} (choose from {', '.join(RUNNERS + AMP_RUNNERS)})")
    extra = []
    for spec in a.msnb_path:
        label, sep, path = spec.partition("=")
        if not sep or not label or not os.path.isdir(path):
            p.error(f"--msnb-path wants LABEL=DIR with an existing DIR, got {spec!r}")
        extra.append((label, os.path.abspath(path)))
    plan = []  # (workload, runner name, argv, PYTHONPATH)
    for w in workloads:
        cmds = commands(w, steps, a.warmup, a.item)
        for n in runners:
            plan.append((w, n, cmds[n], None))
            if n.startswith("msnb"):
                plan += [(w, f"{n}@{lb}", cmds[n], path) for lb, path in extra]
    results = {w: {n: [] for ww, n, _, _ in plan if ww == w} for w in workloads}
    loads = [os.getloadavg()[0]]
    bar = _progress(len(plan) * rounds)
    for _ in range(rounds):
        for w, n, cmd, path in plan:  # interleaved: every runner once per round
            results[w][n].append(run(cmd, path))
            loads.append(os.getloadavg()[0])
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    out = {"host": {"cores": len(os.sched_getaffinity(0)), "cpu": _cpu_model(),
                    "load_avg_1min": {"min": min(loads), "max": max(loads), "mean": statistics.mean(loads)}},
           "settings": {"steps": steps, "warmup": a.warmup, "rounds": rounds, "item": a.item,
                        "msnb_paths": dict(extra)},
           "workloads": {}}
    for w in workloads:
        rows, ratios, errors = summarize(results[w], a.warmup)
        out["workloads"][w] = {"runners": rows, "ratios": ratios, "errors": errors}
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    if a.json:
        print(json.dumps(out))
    else:
        print(render(out))
    return 0


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            return next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        return "?"


def render(out) -> str:
    """The suite's result as text tables."""
    h, s = out["host"], out["settings"]
    la = h["load_avg_1min"]
    lines = [f"{h['cpu']}, {h['cores']} cores, load average {la['min']:.1f}-{la['max']:.1f} (mean {la['mean']:.1f}); "
             f"{s['steps']} steps after {s['warmup']} warm-up, {s['rounds']} round(s), loss.item() {s['item']}"]
    for w, r in out["workloads"].items():
        rows = r["runners"]
        unit = next((x["unit"] for x in rows.values()), "samples")
        lines.append(f"\n{w}")
        lines.append(f"  {'runner':28s} {unit + '/s':>11s} {'step ms':>9s} {'tail ms':>8s} {'CPU ms':>8s} {'compile s':>9s} "
                     f"{'warm-up s':>9s} {'peak RSS MB':>11s}")
        for n, x in rows.items():
            comp = f"{x['compile_s']:9.1f}" if "compile_s" in x else f"{'':9s}"
            fb = f"  fallbacks: {len(x['fallbacks'])}" if x.get("fallbacks") else ""
            kept = [c for c in x.get("graph_choice") or () if c]
            fb += f"  kept: {', '.join(kept)}" if kept else ""
            lines.append(f"  {n:28s} {x['samples_per_s']:11.1f} {x['step_ms']:9.1f} {x.get('tail_step_ms') or 0:8.1f} {x.get('cpu_ms_per_step') or 0:8.1f} {comp} {x.get('warmup_s', 0):9.1f} {x['peak_rss_mb']:11.0f}{fb}")
        for n, e in r["errors"].items():
            lines.append(f"  {n:28s} failed: {e}")
        for k, v in r["ratios"].items():
            if isinstance(v, float) and not k.startswith("choice") or k.endswith("(tail)"):
                lines.append(f"    {k:50s} {v:6.2f}x")
            else:
                lines.append(f"    {k:50s} {v}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
