"""AMP levels and ``torch.autocast``/``GradScaler`` in graph mode: the same
dtypes and losses as in PyNative at each level (the level is part of the
guard key, so switching levels compiles a new graph)."""

import numpy as np
import pytest

import msnb.adapter.torch as torch
from msnb.adapter import graph
from msnb.adapter.torch.amp import policy

from .models import MLP, batches

nn = torch.nn


def _run(level, enabled, steps=6):
    graph.set_enabled(enabled)
    torch.manual_seed(0)
    net = MLP()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    losses, dtypes = [], set()
    with policy.level_scope(level):
        for i, (x, y) in enumerate(batches((20,), 4) * 2):
            if i == steps:
                break
            out = net(torch.tensor(x))
            dtypes.add(out.dtype)
            loss = crit(out, torch.tensor(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses, dtypes


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_amp_levels_match_pynative(graph_mode, level):
    full, _ = _run("O0", False)
    le, de = _run(level, False)
    lg, dg = _run(level, True)
    assert de == dg == {torch.float32}  # like MindSpore's levels, the network's output is cast back
    assert max(abs(a - b) / abs(b) for a, b in zip(le, full)) > 1e-6  # float16 math really ran
    np.testing.assert_allclose(lg, le, rtol=1e-3)  # and graph mode agrees to float16's precision
    assert graph.stats()["replays"] > 0 and graph.fallbacks() == []


def _scaler_run(enabled):
    graph.set_enabled(enabled)
    torch.manual_seed(0)
    net = MLP()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0 ** 10)
    losses = []
    for x, y in batches((20,), 4) * 2:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(net(torch.tensor(x)), torch.tensor(y))
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return losses, scaler.get_scale()


def test_autocast_and_grad_scaler_match_pynative(graph_mode):
    (le, se), (lg, sg) = _scaler_run(False), _scaler_run(True)
    np.testing.assert_allclose(lg, le, rtol=1e-3)
    assert sg == se
