"""Fixtures for the torchvision adapter tests: small files in the real on-disk formats."""

from __future__ import annotations

import gzip
import os
import pickle
import struct

import numpy as np
import pytest
from PIL import Image

os.environ.setdefault("GLOG_v", "3")


def write_idx(path, arr, compress=False):
    """Write ``arr`` (uint8) in idx-ubyte format: 0x0000, type 0x08, ndim, big-endian dims, data."""
    header = bytes([0, 0, 0x08, arr.ndim]) + b"".join(struct.pack(">I", d) for d in arr.shape)
    payload = header + arr.astype(np.uint8).tobytes()
    if compress:
        with gzip.open(str(path) + ".gz", "wb") as f:
            f.write(payload)
    else:
        with open(path, "wb") as f:
            f.write(payload)


@pytest.fixture
def mnist_root(tmp_path):
    rng = np.random.default_rng(0)
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(0, 256, (7, 28, 28), dtype=np.uint8),
        "train-labels-idx1-ubyte": rng.integers(0, 10, 7, dtype=np.uint8),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, (3, 28, 28), dtype=np.uint8),
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, 3, dtype=np.uint8),
    }
    for name, arr in arrays.items():
        write_idx(raw / name, arr)
    return tmp_path, arrays


@pytest.fixture
def fashion_gz_root(tmp_path):
    rng = np.random.default_rng(1)
    raw = tmp_path / "FashionMNIST" / "raw"
    raw.mkdir(parents=True)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(0, 256, (5, 28, 28), dtype=np.uint8),
        "train-labels-idx1-ubyte": rng.integers(0, 10, 5, dtype=np.uint8),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, 2, dtype=np.uint8),
    }
    for name, arr in arrays.items():
        write_idx(raw / name, arr, compress=True)
    return tmp_path, arrays


CIFAR10_NAMES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]


def _dump(path, obj, protocol=pickle.HIGHEST_PROTOCOL):
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=protocol)


@pytest.fixture
def cifar10_root(tmp_path):
    rng = np.random.default_rng(2)
    base = tmp_path / "cifar-10-batches-py"
    base.mkdir()
    batches = {}
    for i, name in enumerate(["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5",
                              "test_batch"]):
        n = 2 + (i % 2)
        data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
        labels = [int(x) for x in rng.integers(0, 10, n)]
        batches[name] = (data, labels)
        # protocol 2 for some files, like the real (Python 2) files; newest protocol for others
        _dump(base / name, {b"batch_label": b"batch", b"labels": labels, b"data": data,
                            b"filenames": [b"x.png"] * n}, protocol=2 if i % 2 else pickle.HIGHEST_PROTOCOL)
    _dump(base / "batches.meta", {b"label_names": [n.encode() for n in CIFAR10_NAMES], b"num_cases_per_batch": 2,
                                  b"num_vis": 3072}, protocol=2)
    return tmp_path, batches


@pytest.fixture
def cifar100_root(tmp_path):
    rng = np.random.default_rng(3)
    base = tmp_path / "cifar-100-python"
    base.mkdir()
    out = {}
    for name, n in (("train", 4), ("test", 2)):
        data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
        fine = [int(x) for x in rng.integers(0, 100, n)]
        out[name] = (data, fine)
        _dump(base / name, {"data": data, "fine_labels": fine, "coarse_labels": [0] * n}, protocol=2)
    _dump(base / "meta", {"fine_label_names": [f"c{i}" for i in range(100)],
                          "coarse_label_names": [f"s{i}" for i in range(20)]})
    return tmp_path, out


@pytest.fixture
def image_folder(tmp_path):
    rng = np.random.default_rng(4)
    root = tmp_path / "imgs"
    files = {}
    for cls, names in (("dog", ["b.png", "a.png"]), ("cat", ["z.png"]), ("bird", ["sub/c.png", "d.png"])):
        for n in names:
            p = root / cls / n
            p.parent.mkdir(parents=True, exist_ok=True)
            arr = rng.integers(0, 256, (6, 5, 3), dtype=np.uint8)
            Image.fromarray(arr).save(p)
            files[str(p)] = arr
    (root / "cat" / "notes.txt").write_text("not an image")
    return root, files


@pytest.fixture
def rgb_image():
    rng = np.random.default_rng(5)
    return Image.fromarray(rng.integers(0, 256, (37, 53, 3), dtype=np.uint8))
