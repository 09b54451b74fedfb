"""DataLoader: batching rules, samplers, and real worker processes giving the same batches."""

from __future__ import annotations

import numpy as np
import pytest

import msnb.adapter.torch as torch
from msnb.adapter.torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,
                                           SequentialSampler, Subset, SubsetRandomSampler, TensorDataset,
                                           get_worker_info, random_split)


def _ds(n=10):
    return TensorDataset(torch.arange(2 * n).reshape(n, 2).float(), torch.arange(n))


def _lists(loader):
    return [[t.numpy().tolist() for t in b] for b in loader]


class NumpyDataset(Dataset):
    """Python/numpy samples, with the worker id recorded."""

    def __len__(self):
        return 9

    def __getitem__(self, i):
        info = get_worker_info()
        return {"x": np.full(3, i, dtype=np.float32), "wid": -1 if info is None else info.id}


def test_workers_give_same_batches_as_main_process():
    """num_workers=2 (real processes) yields the same batches in the same order as num_workers=0."""
    ds = _ds()
    assert _lists(DataLoader(ds, batch_size=3, num_workers=2)) == _lists(DataLoader(ds, batch_size=3))
    a = list(DataLoader(NumpyDataset(), batch_size=2, num_workers=2))
    b = list(DataLoader(NumpyDataset(), batch_size=2))
    assert [x["x"].numpy().tolist() for x in a] == [x["x"].numpy().tolist() for x in b]
    assert {int(v) for x in a for v in x["wid"].tolist()} == {0, 1}


def test_drop_last_and_len():
    """drop_last removes the short final batch; len() agrees with iteration."""
    ds = _ds()
    loader = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(loader) == 2 and len(list(loader)) == 2
    loader = DataLoader(ds, batch_size=4)
    assert len(loader) == 3 and tuple(list(loader)[-1][0].shape) == (2, 2)


def test_shuffle_is_a_permutation():
    """shuffle=True visits every sample exactly once."""
    ys = [v for _, y in DataLoader(_ds(), batch_size=3, shuffle=True) for v in y.tolist()]
    assert sorted(ys) == list(range(10))


def test_sampler_and_batch_sampler():
    """An explicit sampler / batch_sampler decides the indices."""
    ds = _ds()
    got = [y.tolist() for _, y in DataLoader(ds, batch_size=2, sampler=SubsetRandomSampler([1, 3, 5]))]
    assert sorted(v for b in got for v in b) == [1, 3, 5]
    bs = BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)
    assert [y.tolist() for _, y in DataLoader(ds, batch_sampler=bs)] == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(ValueError):
        DataLoader(ds, batch_size=2, batch_sampler=bs)


def test_iterable_dataset_with_workers_interleaves_like_pytorch():
    """Each worker iterates its own shard; batches alternate between workers as in PyTorch."""

    class Stream(IterableDataset):
        def __iter__(self):
            info = get_worker_info()
            r = range(10) if info is None else range(info.id, 10, info.num_workers)
            return iter(np.float32(i) for i in r)

    assert [t.tolist() for t in DataLoader(Stream(), batch_size=2)] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    got = [t.tolist() for t in DataLoader(Stream(), batch_size=2, num_workers=2)]
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]


def test_worker_error_is_reported():
    """An exception in a worker surfaces in the main process with its traceback."""

    class Bad(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            raise ValueError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        list(DataLoader(Bad(), batch_size=2, num_workers=2))


def test_random_split_sizes_and_disjoint():
    """random_split by lengths or fractions gives disjoint subsets covering the dataset."""
    g = torch.Generator()
    g.manual_seed(0)
    parts = random_split(range(10), [0.3, 0.7], generator=g)
    assert [len(p) for p in parts] == [3, 7]
    idx = [i for p in parts for i in p.indices]
    assert sorted(idx) == list(range(10))
    parts = random_split(range(10), [5, 5])
    assert set(parts[0].indices).isdisjoint(parts[1].indices)
    with pytest.raises(ValueError):
        random_split(range(10), [5, 4])


def test_subset_and_concat():
    """Subset and ConcatDataset index like PyTorch's."""
    c = ConcatDataset([range(3), range(10, 12)])
    assert len(c) == 5 and [c[i] for i in range(5)] == [0, 1, 2, 10, 11] and c[-1] == 11
    assert Subset(range(10), [4, 2])[1] == 2


def test_generator_dataset_accepts_dataloader():
    """mindspore.dataset.GeneratorDataset(source=loader) works with adapter-tensor batches."""
    import mindspore.dataset as mds

    loader = DataLoader(_ds(), batch_size=5)
    gd = mds.GeneratorDataset(source=loader, column_names=["x", "y"], shuffle=False)
    rows = list(gd.create_tuple_iterator(output_numpy=True))
    assert [tuple(r[0].shape) for r in rows] == [(5, 2), (5, 2)]
    np.testing.assert_array_equal(rows[1][1], np.arange(5, 10))
