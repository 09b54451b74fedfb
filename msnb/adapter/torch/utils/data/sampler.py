"""Samplers with PyTorch semantics: the same draws as PyTorch's, so the same index order for a seed."""

from __future__ import annotations

from typing import Iterator, Sequence

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


def _torch():
    import msnb.adapter.torch as torch
    return torch


def _new_seed(generator=None):
    """PyTorch's ``int(torch.empty((), dtype=torch.int64).random_(generator=...).item())``."""
    torch = _torch()
    return int(torch.empty((), dtype=torch.int64).random_(generator=generator).item())


def _make_generator(generator):
    """``generator``, or (as PyTorch's samplers do) a fresh one seeded from the global generator."""
    if generator is not None:
        return generator
    g = _torch().Generator()
    g.manual_seed(_new_seed())
    return g


class Sampler:
    """Base class: iterate over dataset indices."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Random permutation, or ``num_samples`` draws with ``replacement``."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        torch = _torch()
        n = len(self.data_source)
        g = _make_generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from torch.randint(0, n, (32,), generator=g).tolist()
            yield from torch.randint(0, n, (self.num_samples % 32,), generator=g).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from torch.randperm(n, generator=g).tolist()
            yield from torch.randperm(n, generator=g).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """A random permutation of the given ``indices``."""

    def __init__(self, indices: Sequence[int], generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        perm = _torch().randperm(len(self.indices), generator=self.generator).tolist()
        for i in perm:
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Draw ``num_samples`` indices with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        import numpy as np
        w = np.asarray(weights.tolist() if hasattr(weights, "tolist") else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {w.shape}")
        self.weights = _torch().tensor(w)
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        rand = _torch().multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from iter(rand.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group indices from ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
