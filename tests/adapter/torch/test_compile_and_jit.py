"""``torch.compile`` / ``torch.jit`` on a module run it as compiled graphs
(graphs are really compiled and replayed), give eager's values and gradients,
keep PyTorch's state-dict keys, say so once, and refuse TorchScript-only API."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter import graph

X = np.random.default_rng(2).standard_normal((4, 5)).astype(np.float32)


def _net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(5, 6), lib.nn.Tanh(), lib.nn.Linear(6, 2))


def _grads(module):
    return [p.grad.numpy().copy() for p in module.parameters()]


@pytest.mark.parametrize("wrap", [mt.compile, mt.jit.script, lambda m: mt.jit.trace(m, mt.tensor(X))],
                         ids=["compile", "jit.script", "jit.trace"])
def test_compiled_module_runs_graphs_with_eager_numbers(wrap, capsys):
    eager, net = _net(mt), _net(mt)
    net.load_state_dict(eager.state_dict())
    compiled = wrap(net)
    before = graph.stats()["replays"]
    x = mt.tensor(X)
    for _ in range(4):
        for p in net.parameters():
            p.grad = None
        out = compiled(x)
        out.sum().backward()
    assert graph.stats()["replays"] > before, "the module was not replayed as a graph"
    ref = eager(x)
    ref.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(_grads(net), _grads(eager)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    err = capsys.readouterr().err
    assert err.count("runs Sequential as compiled MindSpore graphs") == 1


def test_state_dict_keys_are_pytorchs():
    assert list(mt.compile(_net(mt)).state_dict()) == list(real.compile(_net(real)).state_dict())
    assert list(mt.jit.script(_net(mt)).state_dict()) == list(real.jit.script(_net(real)).state_dict())


def test_compile_of_a_function_returns_it():
    def f(x):
        return x * 2
    assert mt.compile(f) is f
    assert mt.compile(disable=True)(f) is f


@pytest.mark.parametrize("call", [lambda m: m.save("m.pt"), lambda m: m.code, lambda m: m.graph,
                                  lambda m: mt.jit.save(m, "m.pt"), lambda m: mt.jit.load("m.pt")],
                         ids=["save", "code", "graph", "jit.save", "jit.load"])
def test_torchscript_only_api_raises_msnb_error(call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NotImplementedError, match="not supported by msnb yet.*support list"):
        call(mt.jit.script(_net(mt)))
    assert not list(tmp_path.iterdir())


def test_trace_needs_example_inputs_and_runs_them():
    with pytest.raises(RuntimeError, match="example_inputs"):
        mt.jit.trace(_net(mt))
    with pytest.raises(RuntimeError):  # PyTorch also runs the example: a wrong shape fails at trace time
        mt.jit.trace(_net(mt), mt.zeros(4, 3))


def test_eager_decorators_behave_as_in_eager_pytorch():
    assert mt.jit.is_scripting() is real.jit.is_scripting() is False
    assert mt.jit.annotate(int, 3) == 3
    f = mt.jit.ignore(lambda: 1)
    assert f() == 1
    assert mt.jit.unused(f) is f and mt.jit.export(f) is f


def test_onnx_imports_and_export_raises(tmp_path):
    assert mt.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="torch.onnx.export is not supported by msnb yet"):
        mt.onnx.export(_net(mt), mt.tensor(X), str(tmp_path / "m.onnx"))
    assert not list(tmp_path.iterdir())
