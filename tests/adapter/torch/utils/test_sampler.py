"""Samplers, and DistributedSampler against real PyTorch's index assignment."""

from __future__ import annotations

import pytest
import torch as real_torch
from torch.utils.data.distributed import DistributedSampler as RealDS

import msnb.adapter.torch as torch
from msnb.adapter.torch.utils.data import RandomSampler, WeightedRandomSampler
from msnb.adapter.torch.utils.data.distributed import DistributedSampler


@pytest.mark.parametrize("n,world,drop_last", [(10, 3, False), (10, 3, True), (2, 4, False), (12, 4, False)])
def test_distributed_sampler_matches_real_torch(n, world, drop_last):
    """shuffle=False: same indices per rank; shuffle=True: same lengths and padded total."""
    for rank in range(world):
        mine = DistributedSampler(range(n), num_replicas=world, rank=rank, shuffle=False, drop_last=drop_last)
        ref = RealDS(range(n), num_replicas=world, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(mine) == list(ref) and len(mine) == len(ref)
        mine_s = DistributedSampler(range(n), num_replicas=world, rank=rank, shuffle=True, drop_last=drop_last)
        ref_s = RealDS(range(n), num_replicas=world, rank=rank, shuffle=True, drop_last=drop_last)
        assert len(list(mine_s)) == len(list(ref_s)) == len(mine_s)


def test_distributed_sampler_defaults_and_epoch():
    """Without an initialised communication group: world 1, rank 0; set_epoch reshuffles."""
    s = DistributedSampler(range(20))
    assert s.num_replicas == 1 and s.rank == 0 and sorted(s) == list(range(20))
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first and sorted(s) == list(range(20))


def test_random_sampler_replacement_and_generator():
    """num_samples/replacement control the draw; equal generator seeds give equal orders."""
    r = list(RandomSampler(range(5), replacement=True, num_samples=40))
    assert len(r) == 40 and all(0 <= i < 5 for i in r)
    g1, g2 = torch.Generator(), torch.Generator()
    g1.manual_seed(3)
    g2.manual_seed(3)
    assert list(RandomSampler(range(8), generator=g1)) == list(RandomSampler(range(8), generator=g2))
    assert len(list(RandomSampler(range(4), num_samples=6))) == 6


def test_weighted_random_sampler():
    """Zero-weight indices are never drawn."""
    w = list(WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], num_samples=30, replacement=True))
    assert len(w) == 30 and set(w) <= {1, 3}
    assert real_torch is not None
