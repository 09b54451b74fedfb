"""Differential tests of working with FX graphs against real PyTorch: building
a graph by hand or through Proxies, editing it (insert, replace uses, erase,
dead-code elimination, lint), the Node API, ``map_arg``, ``Interpreter`` /
``Transformer``, ``replace_pattern`` and ``ShapeProp``.  Each case does the
same thing in both libraries and compares the graphs, the regenerated code,
the values the modules compute and PyTorch's errors."""

from __future__ import annotations

import contextlib
import io
import operator
import re

import numpy as np
import pytest

from ..harness import case, run_case
from . import _models


def _fx(lib):
    import importlib
    return importlib.import_module(f"{lib.__name__}.fx")


def _sub(lib, name):
    import importlib
    return importlib.import_module(f"{lib.__name__}.fx.{name}")


def _same_code(r_gm, m_gm):
    assert str(m_gm.graph) == str(r_gm.graph)
    assert m_gm.code == r_gm.code


def proxy_graph(r, m):
    """A graph built from Proxies around placeholder nodes (no tracing)."""
    out = {}
    for lib in (r, m):
        fx = _fx(lib)
        graph = fx.Graph()
        tracer = _sub(lib, "proxy").GraphAppendingTracer(graph)
        x = fx.Proxy(graph.placeholder("x"), tracer)
        y = fx.Proxy(graph.placeholder("y"), tracer)
        b = lib.tanh(lib.cat([x, y]))
        c = lib.neg(b)
        lib.add(b, c)  # unused: generated code releases it at once
        graph.output(c.node)
        gm = fx.GraphModule(lib.nn.Module(), graph)
        out[lib] = (gm, repr(x), x.node.format_node(), gm(lib.ones(2), lib.zeros(1)))
    (rg, rr, rf, ro), (mg, mr, mf, mo) = out[r], out[m]
    _same_code(rg, mg)
    assert (mr, mf) == (rr, rf)
    np.testing.assert_allclose(mo.numpy(), ro.numpy(), rtol=1e-6)


def inline_module_through_proxies(r, m):
    """Replace a call_module node by the functional calls the module makes (PyTorch's FX example)."""
    gms = {}
    for lib in (r, m):
        fx = _fx(lib)

        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.relu = lib.nn.ReLU()

            def forward(self, x):
                return self.relu(x) + 1.0

        gm = fx.symbolic_trace(M())
        tracer = _sub(lib, "proxy").GraphAppendingTracer(gm.graph)
        for node in gm.graph.nodes:
            if node.op == "call_module" and node.target == "relu":
                with gm.graph.inserting_before(node):
                    pa = _sub(lib, "node").map_arg(node.args, lambda n: fx.Proxy(n, tracer))
                    out = gm.relu(*pa)
                    node.replace_all_uses_with(out.node)
                    gm.graph.erase_node(node)
        gm.recompile()
        gms[lib] = gm
    _same_code(gms[r], gms[m])
    np.testing.assert_array_equal(gms[m](m.tensor([-1.0, 2.0])).numpy(), gms[r](r.tensor([-1.0, 2.0])).numpy())


def fuse_conv_bn(r, m):
    """Fold eval-mode batch norms into the convolutions before them and erase their nodes."""
    res = {}
    rm = _models.conv_bn(r).eval()
    mm = _models.same_weights(rm, _models.conv_bn(m), m).eval()
    for lib, model in ((r, rm), (m, mm)):
        fx = _fx(lib)
        gm = fx.symbolic_trace(model)
        mods = dict(gm.named_modules())
        for node in gm.graph.nodes:
            if node.op != "call_module" or not isinstance(mods[node.target], lib.nn.BatchNorm2d):
                continue
            prev = node.args[0]
            if prev.op != "call_module" or not isinstance(mods[prev.target], lib.nn.Conv2d) or len(prev.users) > 1:
                continue
            conv, bn = mods[prev.target], mods[node.target]
            with lib.no_grad():
                scale = bn.weight / lib.sqrt(bn.running_var + bn.eps)
                conv.weight.copy_(conv.weight * scale.reshape(-1, 1, 1, 1))
                conv.bias.copy_((conv.bias - bn.running_mean) * scale + bn.bias)
            node.replace_all_uses_with(prev)
            gm.graph.erase_node(node)
        gm.graph.lint()
        gm.recompile()
        res[lib] = gm
    _same_code(res[r], res[m])
    x = np.random.default_rng(2).standard_normal((2, 1, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(res[m](m.tensor(x)).detach().numpy(), res[r](r.tensor(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def insert_and_rewire(r, m):
    """inserting_after + replace_all_uses_with(delete_user_cb) + dead-code elimination + call_method."""
    res = {}
    for lib in (r, m):
        fx = _fx(lib)

        def f(x, y):
            z = x + y
            unused = z * 3  # noqa: F841 - dead code on purpose
            return z.sum()

        gm = fx.symbolic_trace(f)
        add = next(n for n in gm.graph.nodes if n.target is operator.add)
        with gm.graph.inserting_after(add):
            relu = gm.graph.call_function(lib.relu, (add,))
        add.replace_all_uses_with(relu, delete_user_cb=lambda u: u is not relu)
        with gm.graph.inserting_before(relu):
            neg = gm.graph.call_method("neg", (add,))
        relu.replace_input_with(add, neg)
        changed = gm.graph.eliminate_dead_code()
        gm.recompile()
        res[lib] = (gm, changed, [n.name for n in add.users], [n.name for n in relu.all_input_nodes],
                    add.next.name, relu.prev.name, len(gm.graph.nodes))
    (rg, *rest_r), (mg, *rest_m) = res[r], res[m]
    _same_code(rg, mg)
    assert rest_m == rest_r
    assert mg(m.tensor([1.0, -2.0]), m.tensor([-3.0, 1.0])).item() == rg(r.tensor([1.0, -2.0]),
                                                                         r.tensor([-3.0, 1.0])).item()


def hand_built_graph(r, m):
    """Graph() with placeholder / get_attr / call_function / call_method / call_module / output nodes."""
    res = {}
    for lib in (r, m):
        fx = _fx(lib)
        root = lib.nn.Module()
        root.lin = lib.nn.Linear(2, 2)
        root.register_buffer("scale", lib.tensor([2.0, 3.0]))
        g = fx.Graph()
        x = g.placeholder("x")
        k = g.placeholder("k", default_value=1.5)
        s = g.get_attr("scale")
        h = g.call_module("lin", (x,))
        p = g.call_function(operator.mul, (h, s))
        q = g.call_method("clamp", (p,), {"min": 0.0})
        t = g.call_function(lib.add, (q, k), {"alpha": 2})
        g.output((t, [q]))
        g.lint()
        gm = fx.GraphModule(root, g)
        code = g.python_code("self")
        res[lib] = (gm, code.src, type(code).__name__, type(g._codegen).__name__, str(g),
                    [(n.op, n.name, len(n.users)) for n in g.nodes])
    (rg, *rr), (mg, *mr) = res[r], res[m]
    assert mr == rr
    assert mg.code == rg.code


def graph_errors(r, m):
    """PyTorch's exception types and messages for erasing a used node and for a bad lint."""
    msgs = {}
    for lib in (r, m):
        fx = _fx(lib)
        g = fx.symbolic_trace(lambda x: lib.relu(x) + 1).graph
        relu = next(n for n in g.nodes if n.op == "call_function")
        with pytest.raises(RuntimeError) as e1:
            g.erase_node(relu)
        other = fx.Graph()
        y = other.placeholder("y")
        other.output(relu)
        with pytest.raises(RuntimeError) as e2:
            other.lint()
        msgs[lib] = (str(e1.value), str(e2.value).split("\n")[0], y.name)
    assert msgs[m] == msgs[r]


def node_and_map_arg(r, m):
    res = {}
    for lib in (r, m):
        fx = _fx(lib)
        node_mod = _sub(lib, "node")
        g = fx.symbolic_trace(lambda x, y: (x * y, x - y)).graph
        x, y = [n for n in g.nodes if n.op == "placeholder"]
        nested = (x, [y, {"k": x, "s": slice(0, y, None)}], 3)
        mapped = node_mod.map_arg(nested, lambda n: n.name.upper())
        agg = node_mod.map_aggregate(((1, 2), [3, {"a": 4}]), lambda v: v * 10)
        x.meta["custom"] = 1
        res[lib] = (mapped, agg, [(n.name, n.op, [u.name for u in n.users], [i.name for i in n.all_input_nodes])
                                  for n in g.nodes], x.meta["custom"], repr(x), fx.map_arg is node_mod.map_arg)
    assert res[m] == res[r]


def interpreter_runs(r, m):
    res = {}
    rm = _models.nested_mlp(r)
    mm = _models.same_weights(rm, _models.nested_mlp(m), m)
    xin = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    for lib, model in ((r, rm), (m, mm)):
        fx = _fx(lib)
        gm = fx.symbolic_trace(model)

        class Counting(fx.Interpreter):
            def run_node(self, n):
                self.ops = getattr(self, "ops", []) + [n.op]
                return super().run_node(n)

        it = Counting(gm)
        out = it.run(lib.tensor(xin))
        ref = gm(lib.tensor(xin))
        np.testing.assert_allclose(out["e"].detach().numpy(), ref["e"].detach().numpy(), rtol=1e-6)
        res[lib] = (it.ops, out["e"].detach().numpy())
    assert res[m][0] == res[r][0]
    np.testing.assert_allclose(res[m][1], res[r][1], rtol=1e-5, atol=1e-5)
    # PyTorch's message (its own error path takes ~10 s, so it is not re-run here)
    with pytest.raises(RuntimeError, match="^Expected positional argument for parameter x, but one was not passed in!"):
        _fx(m).Interpreter(_fx(m).symbolic_trace(mm)).run()


def transformer_rewrites(r, m):
    res = {}
    for lib in (r, m):
        fx = _fx(lib)

        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(3, 3)

            def forward(self, x):
                return lib.relu(self.lin(x) + 1.0).sum(-1)

        class AddToMul(fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is operator.add:
                    target = operator.mul
                return super().call_function(target, args, kwargs)

        model = M()
        if lib is m:
            _models.same_weights(res[r][1], model, m)
        new = AddToMul(fx.symbolic_trace(model)).transform()
        res[lib] = (new, model)
    rg, mg = res[r][0], res[m][0]
    _same_code(rg, mg)
    assert type(mg).__name__ == type(rg).__name__ == "GraphModule"
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(mg(m.tensor(x)).detach().numpy(), rg(r.tensor(x)).detach().numpy(), rtol=1e-5)


def rewriter_replaces(r, m):
    res = {}
    for lib in (r, m):
        fx = _fx(lib)

        class M(lib.nn.Module):
            def forward(self, x, w1, w2):
                m1 = lib.cat([lib.neg(w1), w2]).sum()
                m2 = lib.cat([lib.neg(w1), w2]).sum()
                return x + lib.max(m1) + lib.max(m2)

        def pattern(a1, a2):
            return lib.cat([lib.neg(a1), a2]).sum()

        def replacement(w1, w2):
            return lib.stack([w1, w2])

        gm = fx.symbolic_trace(M())
        matches = _sub(lib, "subgraph_rewriter").replace_pattern(gm, pattern, replacement)
        matches2 = fx.replace_pattern(gm, pattern, replacement)  # nothing left to match
        res[lib] = (gm, len(matches), len(matches2), [(a.anchor.name, type(a).__name__) for a in matches])
    (rg, *rr), (mg, *mr) = res[r], res[m]
    _same_code(rg, mg)
    assert mr == rr
    args = [np.array(v, dtype=np.float32) for v in ([1.0], [1.0, 2.0], [3.0, -1.0])]
    np.testing.assert_allclose(mg(*map(m.tensor, args)).numpy(), rg(*map(r.tensor, args)).numpy())


def shape_prop(r, m):
    res = {}
    rm = _models.conv_bn(r)
    mm = _models.same_weights(rm, _models.conv_bn(m), m)
    for lib, model in ((r, rm), (m, mm)):
        gm = _fx(lib).symbolic_trace(model)
        _sub(lib, "passes.shape_prop").ShapeProp(gm).propagate(lib.ones(2, 1, 4, 4))
        res[lib] = [(n.name, tuple(n.meta["tensor_meta"].shape), str(n.meta["tensor_meta"].dtype),
                     n.meta["tensor_meta"].requires_grad, n.meta["tensor_meta"].stride,
                     n.meta["tensor_meta"].is_quantized, n.meta["type"].__name__,
                     type(n.meta["tensor_meta"]).__name__) for n in gm.graph.nodes]
    assert res[m] == res[r]


def print_tabular(r, m):
    shown = {}
    for lib in (r, m):
        gm = _fx(lib).symbolic_trace(lambda x: lib.nn.functional.relu(x).sum(1))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            gm.graph.print_tabular()
        shown[lib] = re.sub(r" at 0x[0-9a-f]+", "", buf.getvalue())
    assert shown[m] == shown[r]


CASES = [
    case("proxy_graph", ("torch.fx.Proxy", "torch.fx.proxy.GraphAppendingTracer", "torch.fx.Graph",
                         "torch.fx.GraphModule"), proxy_graph, kind="custom"),
    case("inline_module", ("torch.fx.proxy.GraphAppendingTracer", "torch.fx.node.map_arg", "torch.fx.Node",
                           "torch.fx.node.Node"), inline_module_through_proxies, kind="custom"),
    case("fuse_conv_bn", ("torch.fx.Graph", "torch.fx.Node"), fuse_conv_bn, kind="custom"),
    case("insert_and_rewire", ("torch.fx.Graph", "torch.fx.Node"), insert_and_rewire, kind="custom"),
    case("hand_built_graph", ("torch.fx.Graph", "torch.fx.graph.Graph", "torch.fx.PythonCode",
                              "torch.fx.graph.PythonCode", "torch.fx.CodeGen", "torch.fx.graph.CodeGen"),
         hand_built_graph, kind="custom"),
    case("graph_errors", ("torch.fx.Graph",), graph_errors, kind="custom"),
    case("node_and_map_arg", ("torch.fx.map_arg", "torch.fx.node.map_arg", "torch.fx.node.map_aggregate",
                              "torch.fx.Node"), node_and_map_arg, kind="custom"),
    case("interpreter", ("torch.fx.Interpreter", "torch.fx.interpreter.Interpreter"), interpreter_runs,
         kind="custom"),
    case("transformer", ("torch.fx.Transformer", "torch.fx.interpreter.Transformer"), transformer_rewrites,
         kind="custom"),
    case("replace_pattern", ("torch.fx.replace_pattern", "torch.fx.subgraph_rewriter.replace_pattern",
                             "torch.fx.subgraph_rewriter.Match"), rewriter_replaces, kind="custom"),
    case("shape_prop", ("torch.fx.passes.shape_prop.ShapeProp", "torch.fx.passes.shape_prop.TensorMetadata"),
         shape_prop, kind="custom"),
    case("print_tabular", ("torch.fx.Graph",), print_tabular, kind="custom"),
]


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_fx_graph_work_matches_pytorch(c):
    run_case(c)
