"""Calls as real models make them: keyword arguments, lists and dicts of
tensors in and nested tuples out (an LSTM's ``(output, (h, c))``), and
gradients of gradients through a compiled model."""

import numpy as np

import msnb.adapter.torch as torch
from msnb.adapter import graph

nn = torch.nn


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)

    def forward(self, xs, scale=1.0, extra=None):
        h = self.a(xs[0]) + xs[1]
        if extra is not None:
            h = h + extra["bias"]
        return {"out": h * scale, "parts": (h, None)}


def _mixer_run(enabled):
    graph.set_enabled(enabled)
    torch.manual_seed(0)
    m = Mixer()
    x0, x1 = torch.ones(2, 4), torch.full((2, 4), 0.5)
    res = []
    for i in range(4):
        r = m([x0, x1], scale=2.0, extra={"bias": torch.full((4,), float(i))})
        r["out"].sum().backward()
        res.append((r["out"].detach().numpy(), r["parts"][1], m.a.weight.grad.numpy().copy()))
    return res


def test_keyword_list_and_dict_arguments_and_dict_results(graph_mode):
    expected = _mixer_run(False)
    got = _mixer_run(True)
    for (eo, en, eg), (go, gn, gg) in zip(expected, got):
        np.testing.assert_allclose(go, eo, rtol=1e-6)
        np.testing.assert_allclose(gg, eg, rtol=1e-6)
        assert gn is None and en is None
    assert graph.stats()["replays"] >= 2 and graph.fallbacks() == []


def _lstm_run(enabled):
    graph.set_enabled(enabled)
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 5, num_layers=2, batch_first=True)
    x = torch.tensor(np.random.default_rng(0).standard_normal((2, 6, 3)).astype(np.float32))
    outs = []
    for _ in range(4):
        out, (h, c) = lstm(x)
        (out.sum() + h.sum() + c.sum()).backward()
        outs.append((out.detach().numpy(), h.detach().numpy(), lstm.weight_ih_l0.grad.numpy().copy()))
    return outs


def test_lstm_nested_outputs(graph_mode):
    for (eo, eh, eg), (go, gh, gg) in zip(_lstm_run(False), _lstm_run(True)):
        np.testing.assert_allclose(go, eo, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(gh, eh, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(gg, eg, rtol=1e-5, atol=1e-7)
    assert graph.stats()["replays"] >= 2 and graph.fallbacks() == []


def _penalty_run(enabled):
    """A gradient penalty (WGAN-GP style) needs d(grad)/d(params)."""
    graph.set_enabled(enabled)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    x = torch.ones(4, 3)
    pens = []
    for _ in range(4):
        xi = x.clone().requires_grad_(True)
        out = net(xi).sum()
        (g,) = torch.autograd.grad(out, xi, create_graph=True)
        pen = g.pow(2).sum()
        net.zero_grad()
        pen.backward()
        pens.append((pen.item(), net[0].weight.grad.numpy().copy()))
    return pens


def test_gradients_of_gradients_through_a_compiled_model(graph_mode):
    for (ep, eg), (gp, gg) in zip(_penalty_run(False), _penalty_run(True)):
        assert abs(gp - ep) <= 1e-5 * abs(ep)
        np.testing.assert_allclose(gg, eg, rtol=1e-5, atol=1e-7)
