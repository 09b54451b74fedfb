"""Differential tests of ``torch.profiler`` and ``torch.autograd.profiler`` against
real PyTorch: schedules, the record/save cycle, ``record_function`` ranges, the
table's layout, the chrome trace, and what CUDA activity does on a CPU host.
Kernel names differ by design (msnb::<kernel> vs aten::<op>), so cases compare
the user's ranges and the structure, and msnb-only tests check the kernel hook."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

import pytest

from ..harness import case, run_case

CASES = []


def beh(id, names, fn, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def P(t):  # noqa: N802
    return t.profiler


def names_of(events):
    return sorted(e.name for e in events if not e.name.startswith(("aten::", "msnb::")))


SCHED = ("torch.profiler.schedule", "torch.profiler.ProfilerAction", "torch.profiler.ProfilerAction.NONE",
         "torch.profiler.ProfilerAction.WARMUP", "torch.profiler.ProfilerAction.RECORD",
         "torch.profiler.ProfilerAction.RECORD_AND_SAVE")
for kw in ({"wait": 1, "warmup": 1, "active": 2, "repeat": 1}, {"wait": 0, "warmup": 2, "active": 1},
           {"wait": 2, "warmup": 1, "active": 3, "repeat": 2, "skip_first": 3},
           {"wait": 1, "warmup": 1, "active": 1, "skip_first_wait": 1, "repeat": 2}):
    beh(f"schedule{kw}", SCHED, lambda t, kw=kw: [P(t).schedule(**kw)(i).name for i in range(14)])
beh("schedule raises[active 0]", SCHED, lambda t: P(t).schedule(wait=1, warmup=1, active=0))
beh("ProfilerActivity", ("torch.profiler.ProfilerActivity", "torch.profiler.ProfilerActivity.CPU",
                         "torch.profiler.ProfilerActivity.CUDA"),
    lambda t: (list(P(t).ProfilerActivity.__members__), str(P(t).ProfilerActivity.CPU),
               repr(P(t).ProfilerActivity.CUDA)))
beh("supported_activities", ("torch.profiler.supported_activities",),
    lambda t: P(t).ProfilerActivity.CPU in P(t).supported_activities())


def cycle(t):
    calls = []
    x = t.ones(8, 8)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with P(t).profile(activities=[P(t).ProfilerActivity.CPU, P(t).ProfilerActivity.CUDA],
                          schedule=P(t).schedule(wait=1, warmup=1, active=2, repeat=2),
                          on_trace_ready=lambda p: calls.append(
                              (p.step_num, names_of(p.events()).count("step")))) as p:
            for _ in range(10):
                with P(t).record_function("step"):
                    (x + 1).sum()
                p.step()
    msgs = sorted({str(m.message) for m in w if "profil" in str(m.message).lower() or "CUDA" in str(m.message)})
    return calls, msgs


beh("profile[schedule cycle, CUDA on CPU]", ("torch.profiler.profile", "torch.profiler.record_function"), cycle)


def nested(t):
    with P(t).profile(record_shapes=True, profile_memory=True) as p:
        with P(t).record_function("outer"):
            with P(t).record_function("inner"):
                t.ones(4, 4) @ t.ones(4, 4)
            with P(t).record_function("inner"):
                t.ones(4).exp()
    ka = p.key_averages()
    outer = [e for e in p.events() if e.name == "outer"][0]
    table = ka.table(sort_by="cpu_time_total", row_limit=10)
    return (names_of(ka), {e.key: e.count for e in ka if e.key in ("outer", "inner")},
            names_of(outer.cpu_children), [h in table for h in ("Name", "Self CPU %", "CPU total", "CPU Mem",
                                                                 "Self CPU Mem", "# of Calls",
                                                                 "Self CPU time total:")],
            "Input Shapes" in p.key_averages(group_by_input_shape=True).table())


beh("profile[nested ranges, table]", ("torch.profiler.profile", "torch.profiler.record_function"), nested)


def decorated(t):
    @P(t).record_function("deco")
    def f(x):
        return x * 2

    with P(t).profile() as p:
        f(t.ones(2))
        f(t.ones(2))
    return [e.count for e in p.key_averages() if e.key == "deco"]


beh("record_function[decorator]", ("torch.profiler.record_function",), decorated)


def chrome(t):
    with tempfile.TemporaryDirectory() as tmp:
        return _chrome(t, Path(tmp))


def _chrome(t, tmp):
    path = tmp / f"{t.__name__}.json"
    with P(t).profile() as p:
        with P(t).record_function("region"):
            t.ones(3) + 1
    p.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    region = [e for e in xs if e["name"] == "region"][0]
    return ("traceEvents" in doc, region["cat"], sorted(k for k in ("ts", "dur", "pid", "tid") if k in region),
            all(isinstance(e["ts"], (int, float)) and e["dur"] >= 0 for e in xs))


def tb_handler(t):
    with tempfile.TemporaryDirectory() as tmp:
        return _tb_handler(t, Path(tmp))


def _tb_handler(t, tmp):
    d = tmp / f"tb_{t.__name__}"
    with P(t).profile(on_trace_ready=P(t).tensorboard_trace_handler(str(d), worker_name="w0")):
        t.ones(2) * 3
    files = list(d.iterdir())
    return len(files), files[0].name.startswith("w0.") and files[0].name.endswith(".pt.trace.json"), \
        "traceEvents" in json.loads(files[0].read_text())


beh("export_chrome_trace", ("torch.profiler.profile",), chrome)
beh("tensorboard_trace_handler", ("torch.profiler.tensorboard_trace_handler",), tb_handler)


def legacy(t):
    with t.autograd.profiler.profile(record_shapes=True) as prof:
        with t.autograd.profiler.record_function("legacy_range"):
            y = (t.ones(5, 5, requires_grad=True) * 2).sum()
        y.backward()
    table = prof.key_averages().table(sort_by="self_cpu_time_total")
    return "legacy_range" in table, [e.count for e in prof.key_averages() if e.key == "legacy_range"], \
        isinstance(prof.self_cpu_time_total, float), "legacy_range" in names_of(prof.function_events)


beh("autograd.profiler.profile", ("torch.autograd.profiler.profile", "torch.autograd.profiler.record_function",
                                  "torch.autograd.profiler.EventList", "torch.autograd.profiler.FunctionEvent"),
    legacy)


def unfinished(t):
    p = P(t).profile()
    return p.key_averages()


beh("profile raises[no results yet]", ("torch.profiler.profile",), unfinished)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_profiler_matches_pytorch(c):
    run_case(c)


def test_kernels_are_wrapped_only_while_a_profile_records():
    """Zero cost outside a profile: the dispatch table holds the plain kernels."""
    import msnb.adapter.torch as mt
    from msnb.adapter import _dispatch
    plain = _dispatch.K.matmul
    with mt.profiler.profile():
        assert _dispatch.K.matmul is not plain
        with mt.profiler.profile():  # nested profiles share one hook
            pass
        assert _dispatch.K.matmul is not plain
    assert _dispatch.K.matmul is plain


def test_kernel_events_are_timed_and_nested_in_their_range():
    import msnb.adapter.torch as mt
    with mt.profiler.profile(record_shapes=True, profile_memory=True) as p:
        with mt.profiler.record_function("mm"):
            mt.ones(6, 5) @ mt.ones(5, 4)
    rng = [e for e in p.events() if e.name == "mm"][0]
    kernels = [c for c in rng.cpu_children if c.name == "msnb::matmul"]
    assert kernels and kernels[0].input_shapes == [[6, 5], [5, 4]]
    assert kernels[0].cpu_memory_usage == 6 * 4 * 4  # one float32 (6, 4) output
    start, end = rng.time_range
    k0, k1 = kernels[0].time_range
    assert start <= k0 <= k1 <= end and kernels[0].cpu_time_total > 0
