"""DistributedDataParallel on 2 CPU workers: the seed's LeNet, 10 SGD-momentum steps.

Each rank trains on its half of every batch under DDP and, alone, the same
LeNet on the whole batch; DDP's parameters must match within 1e-5 relative
on every rank (ranks start from different seeds: DDP broadcasts rank 0's)."""

from __future__ import annotations

import pytest

from ._job import ranks_of


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    return ranks_of("ddp_lenet_worker.py", tmp_path_factory)


def test_ddp_matches_single_process_training_on_the_whole_batch(ranks):
    for r in ranks:
        assert r["worst_rel"] < 1e-5, r


def test_ddp_wrapper_keeps_pytorch_names(ranks):
    for r in ranks:
        assert r["keys"] == ["module.conv1.weight", "module.conv1.bias"]
        assert r["module_is_model"]


def test_no_sync_leaves_each_rank_its_own_gradients(ranks):
    for r in ranks:
        assert r["no_sync_ranks_differ"]


def test_ddp_in_graph_mode_matches_single_process_training(tmp_path_factory):
    """``--mode graph`` on every worker: the compiled steps still average gradients across ranks."""
    for r in ranks_of("ddp_lenet_worker.py", tmp_path_factory, exec_options=("--mode", "graph")):
        assert r["worst_rel"] < 1e-5, r
        assert r["graphs_compiled"] > 0, r
