"""Module state written in forward (BatchNorm's running statistics) and
inference calls (``eval()`` under ``no_grad``) behave as in PyNative."""

import numpy as np

import msnb.adapter.torch as torch
from msnb.adapter import graph

nn = torch.nn


def _bn_run(steps=6):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        x = torch.tensor(rng.standard_normal((16, 5)).astype(np.float32))
        loss = net(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        outs = [net(torch.tensor(rng.standard_normal((16, 5)).astype(np.float32))).numpy() for _ in range(4)]
    return {k: v.numpy() for k, v in net.state_dict().items()}, outs


def test_batchnorm_running_stats_and_eval_outputs_match_pynative(graph_mode):
    graph.set_enabled(False)
    state_e, outs_e = _bn_run()
    graph.set_enabled(True)
    state_g, outs_g = _bn_run()
    assert set(state_g) == set(state_e)
    for k in state_e:  # running_mean/var and num_batches_tracked are written back after each replay
        np.testing.assert_allclose(state_g[k], state_e[k], rtol=1e-5, atol=1e-6, err_msg=k)
    for a, b in zip(outs_g, outs_e):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert graph.fallbacks() == []


def test_inference_forward_is_compiled(graph_mode):
    net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1)).eval()
    x = torch.randn(3, 4)
    graph.set_enabled(False)
    with torch.no_grad():
        expected = net(x).numpy()
    graph.set_enabled(True)
    with torch.no_grad():
        got = [net(x).numpy() for _ in range(4)]
    for g in got:
        np.testing.assert_allclose(g, expected, rtol=1e-6)
    s = graph.stats()
    assert s["graphs"] == 1 and s["replays"] == 2  # 1st call eager, 2nd recorded, 3rd and 4th replayed


def test_a_new_input_shape_is_a_new_graph(graph_mode):
    net = nn.Linear(4, 2)
    with torch.no_grad():
        for n in (3, 3, 3, 5, 5, 5):
            out = net(torch.ones(n, 4))
            assert tuple(out.shape) == (n, 2)
    assert graph.stats()["graphs"] == 2
