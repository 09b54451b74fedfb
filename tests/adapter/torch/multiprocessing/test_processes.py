"""torch.multiprocessing across real processes: Hogwild updates of a shared model reach the parent, a
tensor comes back through a Queue, and ``spawn`` re-raises a child's exception as PyTorch does.

Each child is a fresh interpreter running torch on MindSpore (a few seconds to start)."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

import msnb.adapter.torch as torch
import msnb.adapter.torch.multiprocessing as mp

from ._workers import LR, STEPS, hogwild_train, wait_then_fail

TESTS = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _importable_in_children(monkeypatch):
    """pytest imports this folder as ``adapter.torch...`` (importlib mode, not on sys.path); children
    unpickle the targets by that name, so its root goes on the sys.path they copy."""
    monkeypatch.syspath_prepend(str(TESTS))


def _results(q, procs, n):
    """``n`` items from ``q``, or a failure as soon as every child has ended without sending them."""
    got = []
    while len(got) < n:
        try:
            got.append(q.get(timeout=2))
        except queue.Empty:
            assert any(p.is_alive() for p in procs), f"children ended with {[p.exitcode for p in procs]}"
    return got


def test_two_processes_update_one_shared_model_and_the_parent_sees_every_step():
    model = torch.nn.Linear(4, 1)
    with torch.no_grad():
        model.weight.fill_(1.0)
        model.bias.fill_(0.0)
    model.share_memory()
    lock, results = mp.Lock(), mp.Queue()
    procs = [mp.Process(target=hogwild_train, args=(rank, model, lock, results)) for rank in (0, 1)]
    for p in procs:
        p.start()
    got = sorted(_results(results, procs, 2), key=lambda r: r[0])
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    # d(sum(w @ x + b))/dw = x = rank + 1 everywhere: rank 0's steps take 0.1, rank 1's 0.2 off each weight
    expected = 1.0 - LR * STEPS * (1 + 2)
    assert model.weight.tolist()[0] == pytest.approx([expected] * 4, abs=1e-6)
    assert model.bias.item() == pytest.approx(-LR * STEPS * 2, abs=1e-6)
    # each child read values the other had written (not only its own), and sent its last view back
    reads = {rank: seen for rank, seen, _ in got}
    own_only = {rank: [1.0 - LR * (rank + 1) * k for k in range(STEPS)] for rank in (0, 1)}
    assert reads != own_only
    assert any(w.tolist()[0] == pytest.approx([expected] * 4, abs=1e-6) for _, _, w in got)


def test_spawn_reraises_a_childs_exception_after_it_saw_another_childs_write():
    out = torch.zeros(1).share_memory_()
    with pytest.raises(mp.ProcessRaisedException) as caught:
        mp.spawn(wait_then_fail, args=(out,), nprocs=2)
    assert caught.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(caught.value)
    assert "ValueError: rank 1 saw 10.0" in str(caught.value)
    assert out.item() == 10.0
