"""msnb's ``torch.utils.data``: datasets, samplers, DataLoader (PyTorch semantics)."""

from __future__ import annotations

from .dataset import Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                      BatchSampler)
from .dataloader import DataLoader, get_worker_info
from ._utils.collate import default_collate, default_convert
from .distributed import DistributedSampler
from . import distributed

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
           "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "DataLoader", "get_worker_info", "default_collate", "default_convert",
           "DistributedSampler", "distributed"]


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.utils.data")
