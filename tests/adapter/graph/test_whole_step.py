"""The whole training step as one compiled graph (graph/step.py, issue #21.2).

Once a step (model call, loss, backward, clipping, optimizer.step) has been
seen, the next one is recorded as one graph and later steps replay it: one
compiled call per step.  Results must stay PyNative's -- losses, parameters,
``p.grad`` after the step and the optimizer's state -- also when a step does
something else than the recorded one, and the step must leave the whole-step
graph (with a reason) where a replay could not be faithful."""

import numpy as np
import pytest

import msnb.adapter.torch as torch
from msnb.adapter import graph
from msnb.adapter.graph import step as whole
from msnb.adapter.graph.region import notes

from .models import MLP

nn = torch.nn


def _data(n=4, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    return [(torch.tensor(rng.standard_normal((batch, 20)).astype(np.float32)),
             torch.tensor(rng.integers(0, 4, batch))) for _ in range(n)]


def _optimizer(name, params):
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=5e-4)
    if name == "adam":
        return torch.optim.Adam(params, lr=1e-2)
    return torch.optim.AdamW(params, lr=1e-2, weight_decay=0.1)


def _run(opt_name, steps=6, clip=None, item_mid=None, skip=None, bn=False, lr_per_step=False):
    """The plain loop (tensors made before the step, as a DataLoader gives them).
    Returns losses, state dict, grads and optimizer state after the last step,
    and the replayed-graph count per step."""
    torch.manual_seed(0)
    data = _data()
    net = MLP() if not bn else nn.Sequential(nn.Linear(20, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 4))
    criterion = nn.CrossEntropyLoss()
    optimizer = _optimizer(opt_name, net.parameters())
    losses, replays = [], []
    for i in range(steps):
        x, y = data[i % len(data)]
        if lr_per_step:
            optimizer.param_groups[0]["lr"] = 0.05 / (1 + i)
        r0 = graph.stats()["replays"]
        out = net(x)
        loss = criterion(out.reshape(-1, 4), y.reshape(-1))
        if item_mid is not None and i in item_mid:
            losses.append(("mid", loss.item()))
        optimizer.zero_grad()
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        if skip is not None and i in skip:
            continue  # no update this step
        optimizer.step()
        losses.append(loss.item())
        replays.append(graph.stats()["replays"] - r0)
    grads = [p.grad.numpy().copy() for p in net.parameters()]
    state = {k: {n: (v.numpy().copy() if hasattr(v, "numpy") else v) for n, v in s.items()}
             for k, s in optimizer.state_dict()["state"].items()}
    return losses, {k: v.numpy().copy() for k, v in net.state_dict().items()}, grads, state, replays


def _both(run=None, **kw):
    run = run or _run
    graph.set_enabled(False)
    eager = run(**kw)
    graph.reset()
    whole.reset()
    graph.set_enabled(True)
    compiled = run(**kw)
    return eager, compiled


def _same(eager, compiled, rtol=1e-4, atol=1e-6):
    le, se, ge, ste, _ = eager
    lg, sg, gg, stg, _ = compiled
    np.testing.assert_allclose([v if not isinstance(v, tuple) else v[1] for v in lg],
                               [v if not isinstance(v, tuple) else v[1] for v in le], rtol=rtol)
    for k in se:
        np.testing.assert_allclose(sg[k], se[k], rtol=rtol, atol=atol)
    for a, b in zip(gg, ge):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    assert stg.keys() == ste.keys()
    for k in ste:
        for n in ste[k]:
            np.testing.assert_allclose(np.asarray(stg[k][n]), np.asarray(ste[k][n]), rtol=rtol, atol=atol)


@pytest.fixture
def fresh(graph_mode):
    whole.reset()
    yield
    whole.reset()


@pytest.mark.parametrize("opt_name, clip", [("sgd", 0.05), ("adam", 1.0), ("adamw", None)])
def test_each_step_is_one_graph_with_pynative_numbers(fresh, opt_name, clip):
    eager, compiled = _both(opt_name=opt_name, clip=clip)
    # Adam rescales every gradient component: a fused graph's last-bit differences grow a little
    _same(eager, compiled, rtol=1e-4 if opt_name == "sgd" else 2e-3, atol=1e-6 if opt_name == "sgd" else 1e-4)
    replays = compiled[4]
    assert whole.stats()["recorded"] == 1
    assert replays[3:] == [1] * (len(replays) - 3), replays  # one compiled call per step once recorded
    assert whole.stats()["replayed"] == len(replays) - 3
    assert graph.fallbacks() == []


def test_batchnorm_statistics_are_committed(fresh):
    eager, compiled = _both(opt_name="sgd", bn=True)
    _same(eager, compiled)
    assert whole.stats()["replayed"] >= 3


def test_a_skipped_update_commits_nothing(fresh):
    """Step 4 calls backward but no optimizer.step(): the compiled step already ran,
    so nothing of its update may reach the parameters or the optimizer state."""
    eager, compiled = _both(opt_name="sgd", skip={4})
    _same(eager, compiled)
    assert whole.stats()["replayed"] >= 2 and whole.stats()["diverged"] == 1


def test_a_host_read_inside_the_step_is_fine_when_replayed(fresh):
    """loss.item() before backward on steps 4 and 5: a replay has real values."""
    eager, compiled = _both(opt_name="sgd", item_mid={4, 5})
    _same(eager, compiled)
    assert whole.stats()["replayed"] == 3


def test_a_host_read_in_every_step_stays_region_by_region(fresh, capsys):
    eager, compiled = _both(opt_name="sgd", item_mid=set(range(6)))
    _same(eager, compiled)
    assert whole.stats()["replayed"] == 0
    assert graph.fallbacks() == []  # every region still ran compiled
    assert any("reads a tensor value on the host" in n for n in notes())
    assert "the training step runs as separate graphs, not one: item()" in capsys.readouterr().out


def test_a_batch_made_inside_the_step_is_not_baked_in(fresh):
    """torch.tensor(numpy) between the model call and step(): its value changes at
    every step, so the step stays region by region (a replay would reuse it)."""
    from .models import batches, train
    data = batches((20,), 4)
    graph.set_enabled(False)
    le, se = train(MLP, data, steps=6)
    graph.reset()
    graph.set_enabled(True)
    lg, sg = train(MLP, data, steps=6)
    np.testing.assert_allclose(lg, le, rtol=1e-4)
    assert whole.stats()["replayed"] == 0
    assert any("host data" in n for n in notes())
    assert graph.fallbacks() == []


def test_turned_off_by_environment(fresh, monkeypatch):
    monkeypatch.setenv("MSNB_GRAPH_STEP", "0")
    _run("sgd", steps=5)
    assert whole.stats() == {"recorded": 0, "replayed": 0, "diverged": 0, "pynative": 0}


def test_a_learning_rate_changed_every_step_keeps_pynative_numbers(fresh):
    """The rate is part of the recorded step: changed at every step, no recording
    repeats, and after three tries the step stays region by region (said once)."""
    eager, compiled = _both(opt_name="sgd", lr_per_step=True)
    _same(eager, compiled)
    assert whole.stats()["replayed"] == 0
    assert any("changes from step to step" in n for n in notes())


def test_an_error_inside_a_recorded_step_leaves_no_recording_open(fresh):
    """The recording spans the user's code: a step left before step() (an error, a
    break) must not leave MindSpore's recorder running -- the cell's end closes it --
    and a replayed step that calls something extra goes on region by region."""
    from msnb.adapter.graph import capture
    torch.manual_seed(0)
    net, criterion = MLP(), nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    x, y = _data(1)[0]

    def one(stop=False, extra=False):
        out = net(x)
        recording = capture.current() is not None
        if extra:
            net(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        if not stop:
            optimizer.step()
        return recording

    assert not one()
    assert one(stop=True)  # recorded, then left before optimizer.step()
    whole.abandon()  # what the cell's end does
    assert capture.current() is None
    assert one()  # recorded again, completed and compiled
    assert whole.stats()["recorded"] == 1
    one(extra=True)
    assert whole.stats() == {"recorded": 1, "replayed": 1, "diverged": 1, "pynative": 0}
    assert capture.current() is None
    one()
    assert whole.stats()["replayed"] == 2


def _run_lists(steps=6, by_name=True):
    """The batches held in short lists in the frame (``x = xs[i]``): one element is
    the model's input, and which one changes at every step."""
    torch.manual_seed(0)
    xs = [x for x, _ in _data()]
    ys = [y for _, y in _data()]
    net, criterion = MLP(), nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    losses, replays = [], []
    for i in range(steps):
        x = xs[i % len(xs)]
        if by_name:
            y = ys[i % len(ys)]
        r0 = graph.stats()["replays"]
        out = net(x)
        loss = criterion(out, y) if by_name else criterion(out, ys[i % len(ys)])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        replays.append(graph.stats()["replays"] - r0)
    return losses, {k: v.numpy().copy() for k, v in net.state_dict().items()}, replays


def test_a_list_of_batches_in_the_frame_still_replays(fresh):
    """The step's signature must not depend on which list element is the input."""
    (le, se, _), (lg, sg, replays) = _both(_run_lists)
    np.testing.assert_allclose(lg, le, rtol=1e-4)
    for k in se:
        np.testing.assert_allclose(sg[k], se[k], rtol=1e-4, atol=1e-6)
    assert whole.stats()["recorded"] == 1
    assert replays[3:] == [1] * (len(replays) - 3), replays
    assert whole.stats()["diverged"] == 0


def test_a_target_read_from_a_list_by_index_is_not_baked_in(fresh):
    """``criterion(out, ys[i])``: the recorded target slot is ``ys[i]`` of the recorded
    step; a replay with another ``i`` must not use it (it runs region by region)."""
    (le, se, _), (lg, sg, _) = _both(_run_lists, steps=5, by_name=False)
    np.testing.assert_allclose(lg, le, rtol=1e-4)
    for k in se:
        np.testing.assert_allclose(sg[k], se[k], rtol=1e-4, atol=1e-6)
    assert whole.stats()["diverged"] >= 1
