"""DataLoader shuffling, ``random_split`` and the random samplers give
PyTorch's index order for a seed (the loader draws its base seed, then
RandomSampler its own seed, from the global generator, as PyTorch does)."""

import pytest

from .test_diff_samplers import same


def _loader_order(t, **kw):
    data = t.utils.data.TensorDataset(t.arange(23))
    loader = t.utils.data.DataLoader(data, batch_size=4, **kw)
    epochs = [t.cat([b[0] for b in loader]) for _ in range(2)]
    return t.cat(epochs + [t.randint(0, 1000, (3,))])


@pytest.mark.parametrize("seed", [0, 1, 77])
def test_dataloader_shuffle_order(seed):
    same(lambda t: _loader_order(t, shuffle=True), seed)
    same(lambda t: _loader_order(t, shuffle=True, drop_last=True), seed)
    same(lambda t: _loader_order(t, shuffle=True, generator=t.Generator().manual_seed(5)), seed)


@pytest.mark.parametrize("seed", [0, 9])
def test_samplers(seed):
    same(lambda t: t.tensor(list(t.utils.data.RandomSampler(range(30)))), seed)
    same(lambda t: t.tensor(list(t.utils.data.RandomSampler(range(30), replacement=True, num_samples=70))), seed)
    same(lambda t: t.tensor(list(t.utils.data.RandomSampler(range(10), num_samples=25))), seed)
    same(lambda t: t.tensor(list(t.utils.data.SubsetRandomSampler([3, 5, 8, 13, 21]))), seed)
    w = [0.1, 2.0, 0.5, 3.0, 0.0, 1.0]
    same(lambda t: t.tensor(list(t.utils.data.WeightedRandomSampler(w, 40))), seed)
    same(lambda t: t.tensor(list(t.utils.data.WeightedRandomSampler(w, 4, replacement=False))), seed)


@pytest.mark.parametrize("seed", [0, 4])
def test_random_split(seed):
    def split(t, lengths, **kw):
        parts = t.utils.data.random_split(range(20), lengths, **kw)
        return t.tensor([i for p in parts for i in p.indices])
    same(lambda t: split(t, [5, 15]), seed)
    same(lambda t: split(t, [0.3, 0.3, 0.4]), seed)
    same(lambda t: split(t, [10, 10], generator=t.Generator().manual_seed(42)), seed)


def test_base_seed_is_drawn_per_epoch_like_pytorch():
    """Two epochs of an unshuffled loader still advance the global stream as PyTorch's does."""
    def run(t):
        loader = t.utils.data.DataLoader(list(range(6)), batch_size=3)
        for _ in range(2):
            list(loader)
        return t.rand(4)
    same(run, 3)
