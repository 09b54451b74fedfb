"""Fixtures for the seed-document tests: a small CIFAR-10 folder in the real
on-disk format (``cifar-10-batches-py`` pickles), with a learnable signal so
that a training loss can be seen to fall."""

from __future__ import annotations

import pickle

import numpy as np
import pytest


def write_cifar10(root, n_train=160, n_test=64, seed=0):
    """Write ``data_batch_1..5``, ``test_batch`` and ``batches.meta`` like CIFAR-10's."""
    rng = np.random.default_rng(seed)
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True, exist_ok=True)
    patterns = rng.integers(0, 256, (10, 3072))

    def batch(n):
        labels = rng.integers(0, 10, n)
        noise = rng.integers(-30, 30, (n, 3072))
        data = np.clip(patterns[labels] * 0.8 + noise + 25, 0, 255).astype(np.uint8)
        return data, labels.tolist()

    per = n_train // 5
    for i in range(1, 6):
        data, labels = batch(per)
        with open(folder / f"data_batch_{i}", "wb") as f:
            pickle.dump({b"batch_label": f"training batch {i} of 5".encode(), b"labels": labels,
                         b"data": data, b"filenames": [b"x.png"] * per}, f, protocol=2)
    data, labels = batch(n_test)
    with open(folder / "test_batch", "wb") as f:
        pickle.dump({b"batch_label": b"testing batch 1 of 1", b"labels": labels, b"data": data,
                     b"filenames": [b"x.png"] * n_test}, f, protocol=2)
    with open(folder / "batches.meta", "wb") as f:
        pickle.dump({b"label_names": [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog",
                                      b"frog", b"horse", b"ship", b"truck"], b"num_cases_per_batch": per,
                     b"num_vis": 3072}, f, protocol=2)
    return root


@pytest.fixture
def cifar_root(tmp_path):
    return write_cifar10(tmp_path / "data")
