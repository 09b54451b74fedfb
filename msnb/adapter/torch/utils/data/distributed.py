"""``DistributedSampler``: each rank gets a disjoint, equally sized slice (PyTorch's padding rules)."""

from __future__ import annotations

import math

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _world():
    """(world size, rank) from ``mindspore.communication`` if initialised, else (1, 0)."""
    try:
        from mindspore import communication as comm
        return int(comm.get_group_size()), int(comm.get_rank())
    except Exception:  # noqa: BLE001 - not initialised (raises RuntimeError in MindSpore)
        return 1, 0


class DistributedSampler(Sampler):
    """msnb implementation of ``torch.utils.data.distributed.DistributedSampler``."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False):
        if num_replicas is None or rank is None:
            world, r = _world()
            num_replicas = world if num_replicas is None else num_replicas
            rank = r if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            import msnb.adapter.torch as torch
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
