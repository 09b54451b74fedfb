"""Dataset classes and ``random_split`` with PyTorch semantics."""

from __future__ import annotations

import bisect
import math
import warnings

import numpy as np

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split"]


class Dataset:
    """Map-style dataset: implement ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Stream-style dataset: implement ``__iter__``."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        raise TypeError("ChainDataset is not supported by msnb yet")


class TensorDataset(Dataset):
    """Rows of tensors sharing the first dimension.

    Inside DataLoader worker processes rows come from a numpy copy made before
    the fork (MindSpore kernels cannot run in a forked child)."""

    def __init__(self, *tensors):
        if any(tensors[0].shape[0] != t.shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors
        self._np = None

    def _prepare_for_workers(self):
        if self._np is None:
            self._np = tuple(np.asarray(t.asnumpy()) for t in self.tensors)

    def __getitem__(self, index):
        from .dataloader import get_worker_info
        from ._tensor_bridge import NumpyTensor
        from ... import _dtype as D

        if self._np is not None and get_worker_info() is not None:
            return tuple(NumpyTensor(np.array(a[index], copy=True), D.to_torch_dtype(t.dtype)._name)
                         for a, t in zip(self._np, self.tensors))
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return int(self.tensors[0].shape[0])


class Subset(Dataset):
    """The items of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)

    def _prepare_for_workers(self):
        if hasattr(self.dataset, "_prepare_for_workers"):
            self.dataset._prepare_for_workers()


class ConcatDataset(Dataset):
    """Several map-style datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        di = bisect.bisect_right(self.cumulative_sizes, idx)
        si = idx if di == 0 else idx - self.cumulative_sizes[di - 1]
        return self.datasets[di][si]

    def _prepare_for_workers(self):
        for d in self.datasets:
            if hasattr(d, "_prepare_for_workers"):
                d._prepare_for_workers()


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping ``Subset``s of the given lengths or fractions."""
    import msnb.adapter.torch as torch

    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(int(math.floor(n * frac)))
        remainder = n - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    if generator is None:
        perm = torch.randperm(n).tolist()
    else:
        perm = torch.randperm(n, generator=generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out
