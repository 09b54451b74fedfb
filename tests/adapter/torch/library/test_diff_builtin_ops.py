"""Differential tests of the built-in ``torch.ops.profiler`` operators against real
PyTorch: eager ranges in a profile, ``call_function`` nodes that name them in a
graph's code, a Proxy argument recording a node (pytorch/examples' fx
``profiling_tracer``), and the schema errors' type."""

from __future__ import annotations

import pytest

from ..harness import case, run_case

CASES = []
NAMES = ("torch.ops", "torch.autograd.profiler.profile", "torch.fx.GraphModule")


def beh(id, fn, kind="behaviour"):
    CASES.append(case(id, NAMES, fn, kind=kind))


def user_ranges(prof):
    return [e.name for e in prof.function_events if not e.name.startswith(("aten::", "msnb::"))]


def eager(t, new=False):
    ops = t.ops.profiler
    enter = ops._record_function_enter_new if new else ops._record_function_enter
    with t.autograd.profiler.profile() as prof:
        h = enter("outer", "some args")
        y = t.relu(t.ones(3) - 2)
        ops._record_function_exit(h)
        t.relu(y)
    return user_ranges(prof), y


beh("eager range", eager)
beh("eager range[enter_new]", lambda t: eager(t, new=True))


def graph_code(t):
    g = t.fx.Graph()
    x = g.placeholder("x")
    h = g.call_function(t.ops.profiler._record_function_enter, ("foo",))
    r = g.call_function(t.relu, (x,))
    g.call_function(t.ops.profiler._record_function_exit, (h,))
    g.output(r)
    gm = t.fx.GraphModule(t.nn.Module(), g)
    x = t.tensor([-1.0, 2.0])
    with t.autograd.profiler.profile() as prof:
        out = gm(x)
    return gm.code, str(g), user_ranges(prof), out


beh("call_function nodes run and print", graph_code)


def traced(t):
    """A tracer that puts the op into the graph through a Proxy argument, as profiling_tracer does."""
    class M(t.nn.Module):
        def forward(self, x):
            return x * 2

    tr = t.fx.Tracer()
    g = tr.trace(M())
    # add the range around the graph's body through Proxies, as a tracer's __enter__ hook would
    ph = next(n for n in g.nodes if n.op == "placeholder")
    with g.inserting_after(ph):
        hp = t.fx.Proxy(g.create_node("call_function", t.ops.profiler._record_function_enter, ("bar",)), tr)
    out = next(n for n in g.nodes if n.op == "output")
    with g.inserting_before(out):
        t.ops.profiler._record_function_exit(hp)
    gm = t.fx.GraphModule(M(), g)
    x = t.ones(2)
    with t.autograd.profiler.profile() as prof:
        res = gm(x)
    return gm.code, user_ranges(prof), res


beh("Proxy argument records a node", traced)
beh("repr and str", lambda t: (repr(t.ops.profiler._record_function_enter), str(t.ops.profiler._record_function_exit)))
beh("exit of a non-handle raises", lambda t: t.ops.profiler._record_function_exit(3))
beh("enter with a non-str name raises", lambda t: t.ops.profiler._record_function_enter(3))
beh("enter with non-str args raises", lambda t: t.ops.profiler._record_function_enter("a", 5))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_builtin_ops_match_pytorch(c):
    run_case(c)
