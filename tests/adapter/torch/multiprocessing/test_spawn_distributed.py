"""``torch.multiprocessing.spawn`` + ``init_process_group(rank=, world_size=)`` with MASTER_ADDR/MASTER_PORT,
PyTorch's usual DDP pattern without a launcher: the spawned ranks form MindSpore's cluster themselves."""

from __future__ import annotations

from pathlib import Path

import pytest

import msnb.adapter.torch as torch
import msnb.adapter.torch.multiprocessing as mp
from msnb.runtime.launch import free_port

from ._workers import ddp_rank


def test_spawned_ranks_join_one_cluster_and_ddp_averages_their_gradients(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3]))  # children import _workers by name
    monkeypatch.setenv("MASTER_ADDR", "localhost")
    monkeypatch.setenv("MASTER_PORT", str(free_port()))
    out = torch.zeros(4).share_memory_()
    mp.spawn(ddp_rank, args=(2, out), nprocs=2)
    assert out.tolist() == pytest.approx([1.5, 1.5, 0.0, 1.0])
