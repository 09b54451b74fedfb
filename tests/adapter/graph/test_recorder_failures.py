"""When MindSpore's recorder, compiler or a compiled graph fails (not the
user's code), that region runs in PyNative with a reason -- the cell goes on
with PyNative's results -- while an error in the user's own code is raised
exactly as PyNative raises it."""

import numpy as np
import pytest

import msnb.adapter.torch as torch
from msnb.adapter import _ms, graph

from .models import MLP, batches, train


def _boom(*args, **kwargs):
    raise RuntimeError("simulated MindSpore failure\nC++ call stack ...")


@pytest.mark.parametrize("target", ["trace_end", "trace_run"])
def test_mindspore_failures_fall_back_with_same_numbers(graph_mode, monkeypatch, target):
    data = batches((20,), 4)
    graph.set_enabled(False)
    expected, _ = train(MLP, data, steps=6)
    graph.set_enabled(True)
    if target == "trace_run":  # compile for real, then make every replay fail
        real_end = _ms.trace_end
        monkeypatch.setattr(_ms, "trace_end", lambda outs: real_end(outs))
    monkeypatch.setattr(_ms, target, _boom)
    got, _ = train(MLP, data, steps=6)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    reasons = [f.reason for f in graph.fallbacks()]
    assert reasons and all("simulated MindSpore failure" in r for r in reasons)
    assert all("C++" not in r for r in reasons)  # one line, not MindSpore's whole report
    assert {f.region for f in graph.fallbacks()} >= {"MLP.forward", "SGD.step"}


def test_an_error_in_user_code_is_raised_as_in_pynative(graph_mode):
    class Bad(torch.nn.Module):
        def forward(self, x):
            return x @ torch.ones(5, 2)  # wrong shape
    m = Bad()
    for _ in range(3):  # eager, recorded, ...: always PyNative's error
        with pytest.raises(RuntimeError):
            m(torch.ones(2, 3))
