"""Differential tests of ``torch.fx`` tracing against real PyTorch: the same
program is traced in both libraries and what a user sees must agree -- the
printed graph (each node's opcode, target, arguments and user count), the
generated ``forward`` code, ``print(gm)``, the state_dict, the outputs and
gradients of the GraphModule, and PyTorch's errors for Python control flow
on a Proxy."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from ..harness import case, mt, real, run_case
from . import _models


def _fx(lib):
    import importlib
    return importlib.import_module(f"{lib.__name__}.fx")


def _same_trace(r_gm, m_gm):
    assert str(m_gm.graph) == str(r_gm.graph)
    assert m_gm.code == r_gm.code


def _grads(gm):
    return {n: p.grad.numpy().copy() for n, p in gm.named_parameters()}


def trace_nested_module(r, m):
    rm = _models.nested_mlp(r)
    mm = _models.same_weights(rm, _models.nested_mlp(m), m)
    r_gm, m_gm = _fx(r).symbolic_trace(rm), _fx(m).symbolic_trace(mm)
    _same_trace(r_gm, m_gm)
    assert str(m_gm) == str(r_gm)  # the module tree (fresh Modules on the path to each leaf) and the code
    assert type(m_gm).__name__ == type(r_gm).__name__ == "M"
    assert isinstance(m_gm, _fx(m).GraphModule) and isinstance(m_gm, m.nn.Module)
    assert list(m_gm.state_dict()) == list(r_gm.state_dict())
    assert m_gm.sub.lin.weight is mm.sub.lin.weight  # shared, not copied
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    ro, mo = r_gm(r.tensor(x)), m_gm(m.tensor(x))
    assert mo["f"][1] == ro["f"][1] == 2
    np.testing.assert_allclose(mo["e"].detach().numpy(), ro["e"].detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mo["f"][0].detach().numpy(), ro["f"][0].detach().numpy(), rtol=1e-5, atol=1e-5)
    (ro["e"].sum() + ro["f"][0].sum()).backward()
    (mo["e"].sum() + mo["f"][0].sum()).backward()
    rg, mg = _grads(r_gm), _grads(m_gm)
    assert rg.keys() == mg.keys()
    for k in rg:
        np.testing.assert_allclose(mg[k], rg[k], rtol=1e-4, atol=1e-5, err_msg=k)


def trace_concrete_args(r, m):
    def f(x, b=None, flag=True, y=2):
        if b is None and flag:
            return x * y
        return x + b

    for lib_args in ({"b": None, "flag": True}, {"b": None, "flag": True, "y": 3}):
        _same_trace(_fx(r).symbolic_trace(f, concrete_args=lib_args), _fx(m).symbolic_trace(f, concrete_args=lib_args))
    gm = _fx(m).symbolic_trace(f, concrete_args={"b": None, "flag": True})
    np.testing.assert_array_equal(gm(m.ones(2)).numpy(), [2.0, 2.0])
    with pytest.raises(AssertionError, match="b has been specialized to have value None"):
        gm(m.ones(2), m.ones(2))


def trace_function_signature(r, m):
    def f(x, *args, k=1, **kw):
        return x + k

    _same_trace(_fx(r).symbolic_trace(f), _fx(m).symbolic_trace(f))

    traced = []
    for lib in (r, m):
        def g(x, n=3):
            return x.sum(0) * n
        g.__annotations__ = {"x": lib.Tensor, "n": int, "return": lib.Tensor}  # types, not strings
        traced.append(_fx(lib).symbolic_trace(g))
    _same_trace(*traced)


def trace_unpacking_and_methods(r, m):
    def f(x):
        a, b = x.chunk(2)
        y = (a @ b.t()).relu_().mean(-1)
        return x.size(0), y.shape, y[None, ..., 1:], -y, ~(y > 0), abs(y), 2 ** y

    _same_trace(_fx(r).symbolic_trace(f), _fx(m).symbolic_trace(f))


def _constants(lib):
    c = lib.tensor([1.0, 2.0, 3.0])

    def f(x):
        return c * x + lib.ones(3)

    return f


def trace_tensor_constants(r, m):
    rg, mg = _fx(r).symbolic_trace(_constants(r)), _fx(m).symbolic_trace(_constants(m))
    _same_trace(rg, mg)
    assert list(mg.state_dict()) == list(rg.state_dict()) == ["_tensor_constant0", "_tensor_constant1"]
    np.testing.assert_array_equal(mg(m.ones(3)).numpy(), rg(r.ones(3)).numpy())


def trace_errors(r, m):
    def branch(x):
        if x.sum() > 0:
            return x
        return -x

    def loop(x):
        return [v for v in x]

    def length(x):
        return len(x)

    for fn in (branch, loop, length):
        with pytest.raises(Exception) as re_:
            _fx(r).symbolic_trace(fn)
        with pytest.raises(Exception) as me:
            _fx(m).symbolic_trace(fn)
        assert type(me.value).__name__ == type(re_.value).__name__, (me.value, re_.value)
        assert str(me.value) == str(re_.value)
    assert issubclass(_fx(m).proxy.TraceError, ValueError) and issubclass(_fx(r).proxy.TraceError, ValueError)


def trace_functional_arguments(r, m):
    rg = _fx(r).symbolic_trace(_models.functional_calls(r))
    mg = _fx(m).symbolic_trace(_models.functional_calls(m))
    _same_trace(rg, mg)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 3, 4, 4)).astype(np.float32), rng.standard_normal((48, 2)).astype(np.float32)
    for ro, mo in zip(rg(r.tensor(x), r.tensor(w)), mg(m.tensor(x), m.tensor(w))):
        np.testing.assert_allclose(mo.numpy(), ro.numpy(), rtol=1e-4, atol=1e-5)


def custom_leaf_tracer(r, m):
    """A Tracer subclass that traces through ReLU: the functional call PyTorch records."""
    def tracer(lib):
        class T(_fx(lib).Tracer):
            def is_leaf_module(self, mod, qualname):
                return not isinstance(mod, lib.nn.ReLU) and super().is_leaf_module(mod, qualname)
        return T()

    def module(lib):
        return lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU())

    rg, mg = tracer(r).trace(module(r)), tracer(m).trace(module(m))
    assert str(mg) == str(rg)
    assert _fx(m).GraphModule(module(m), mg).code == _fx(r).GraphModule(module(r), rg).code


def _scaled_add(a, b):
    return a * 2 + b


_fx(real).wrap("_scaled_add")
_fx(mt).wrap("_scaled_add")


def trace_wrapped_function(r, m):
    def module(lib):
        class M(lib.nn.Module):
            def forward(self, x, y):
                return _scaled_add(x, y).relu()
        return M()

    rg, mg = _fx(r).symbolic_trace(module(r)), _fx(m).symbolic_trace(module(m))
    _same_trace(rg, mg)
    np.testing.assert_array_equal(mg(m.ones(2), -m.ones(2) * 3).numpy(), rg(r.ones(2), -r.ones(2) * 3).numpy())


def graph_module_trains(r, m):
    """Training the GraphModule trains the traced module's own parameters, step for step as PyTorch."""
    losses = {}
    nets = {lib: lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)) for lib in (r, m)}
    _models.same_weights(nets[r], nets[m], m)
    for lib, net in nets.items():
        gm = _fx(lib).symbolic_trace(net)
        opt = lib.optim.SGD(gm.parameters(), lr=0.1)
        x = lib.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4))
        out = []
        for _ in range(3):
            opt.zero_grad()
            loss = ((gm(x) - 1.0) ** 2).mean()
            loss.backward()
            opt.step()
            out.append(loss.item())
        assert getattr(gm, "0").weight is net[0].weight
        np.testing.assert_array_equal(dict(gm.named_parameters())["0.weight"].detach().numpy(),
                                      net[0].weight.detach().numpy())
        losses[lib.__name__] = out
    np.testing.assert_allclose(losses[m.__name__], losses[r.__name__], rtol=1e-5)


CASES = [
    case("symbolic_trace_nested_module", ("torch.fx.symbolic_trace", "torch.fx.GraphModule",
                                          "torch.fx.graph_module.GraphModule", "torch.fx.Graph",
                                          "torch.fx.graph.Graph"), trace_nested_module, kind="custom"),
    case("symbolic_trace_concrete_args", ("torch.fx.symbolic_trace",), trace_concrete_args, kind="custom"),
    case("symbolic_trace_signature", ("torch.fx.symbolic_trace",), trace_function_signature, kind="custom"),
    case("proxy_unpacking_and_methods", ("torch.fx.Proxy", "torch.fx.proxy.Proxy", "torch.fx.proxy.Attribute"),
         trace_unpacking_and_methods, kind="custom"),
    case("tensor_constants", ("torch.fx.symbolic_trace",), trace_tensor_constants, kind="custom"),
    case("trace_errors", ("torch.fx.proxy.TraceError",), trace_errors, kind="custom"),
    case("functional_arguments", ("torch.fx.symbolic_trace",), trace_functional_arguments, kind="custom"),
    case("custom_tracer", ("torch.fx.Tracer", "torch.fx.proxy.TracerBase"), custom_leaf_tracer, kind="custom"),
    case("wrap", ("torch.fx.wrap",), trace_wrapped_function, kind="custom"),
    case("graph_module_trains", ("torch.fx.GraphModule",), graph_module_trains, kind="custom"),
]


def placeholder_marker_and_constant_shapes(r, m):
    def f(x, y):
        return x + y

    _same_trace(_fx(r).symbolic_trace(f, concrete_args={"y": _fx(r).PH}),
                _fx(m).symbolic_trace(f, concrete_args={"y": _fx(m).PH}))

    def module(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(2, 3))

            def forward(self, x):
                return x.reshape(-1, self.w.shape[1]) @ self.w.t() + self.w.size()[0] + self.w.dim() + self.w.numel()
        return M()

    for constant in (True, False):
        rg = _fx(r).Tracer(param_shapes_constant=constant).trace(module(r))
        mg = _fx(m).Tracer(param_shapes_constant=constant).trace(module(m))
        assert str(mg) == str(rg)


def side_effects_survive_dead_code_elimination(r, m):
    shown = []
    for lib in (r, m):
        fx = _fx(lib)

        def log(x):
            return x

        fx.has_side_effect(log)
        g = fx.Graph()
        x = g.placeholder("x")
        g.call_function(log, (x,))
        g.call_function(operator.neg, (x,))
        g.output(x)
        changed = g.eliminate_dead_code()
        shown.append((changed, [n.op for n in g.nodes], fx.node.has_side_effect is fx.has_side_effect))
    assert shown[1] == shown[0]


def copies(r, m):
    import copy
    shown = []
    for lib in (r, m):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(3, 2)
                self.register_buffer("b", lib.ones(2))

            def forward(self, x):
                return self.lin(x) + self.b

        gm = _fx(lib).symbolic_trace(M())
        deep, shallow = copy.deepcopy(gm), copy.copy(gm)
        shown.append((deep.code == gm.code, type(deep).__name__, deep.lin.weight is gm.lin.weight,
                      bool((deep(lib.ones(1, 3)) == gm(lib.ones(1, 3))).all()), list(deep.state_dict()),
                      shallow.lin is gm.lin, shallow.code == gm.code, type(shallow).__name__))
    assert shown[1] == shown[0]


CASES += [
    case("graph_module_copies", ("torch.fx.GraphModule",), copies, kind="custom"),
    case("placeholder_marker_and_constant_shapes", ("torch.fx.PH", "torch.fx.Tracer", "torch.fx.proxy.ParameterProxy"),
         placeholder_marker_and_constant_shapes, kind="custom"),
    case("has_side_effect", ("torch.fx.has_side_effect", "torch.fx.node.has_side_effect"),
         side_effects_survive_dead_code_elimination, kind="custom"),
]


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_fx_trace_matches_pytorch(c):
    run_case(c)
