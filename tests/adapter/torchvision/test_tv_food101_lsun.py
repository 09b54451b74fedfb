"""torchvision.datasets.Food101 on a tiny dataset in the real on-disk layout; LSUN refused by name."""

from __future__ import annotations

import json
import urllib.error

import numpy as np
import pytest
from PIL import Image

import msnb.adapter.torch as torch
from msnb.adapter.torchvision import datasets, transforms
from msnb.adapter.torchvision.datasets import utils as dutils


@pytest.fixture
def food_root(tmp_path):
    """food-101/images/<class>/<id>.jpg with meta/{train,test}.json and classes.txt, as the archive extracts."""
    base = tmp_path / "food-101"
    split = {"train": {"waffles": ["waffles/11", "waffles/7"], "apple_pie": ["apple_pie/3"]},
             "test": {"waffles": ["waffles/2"], "apple_pie": ["apple_pie/5", "apple_pie/9"]}}
    rng = np.random.default_rng(0)
    for entries in split.values():
        for rel in (r for paths in entries.values() for r in paths):
            path = base / "images" / f"{rel}.jpg"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)).save(path)
    (base / "meta").mkdir()
    for name, entries in split.items():
        (base / "meta" / f"{name}.json").write_text(json.dumps(entries))
    (base / "meta" / "classes.txt").write_text("apple_pie\nwaffles\n")
    return tmp_path


def test_food101_reads_the_split_in_json_order(food_root):
    ds = datasets.Food101(str(food_root), split="train")
    assert ds.classes == ["apple_pie", "waffles"] and ds.class_to_idx == {"apple_pie": 0, "waffles": 1}
    assert len(ds) == 3
    # the json's key order (waffles first), each class's listed order
    assert [p.name for p in ds._image_files] == ["11.jpg", "7.jpg", "3.jpg"] and ds._labels == [1, 1, 0]
    img, label = ds[2]
    assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (24, 20) and label == 0
    assert "split=train" in repr(ds)


def test_food101_test_split_with_transforms(food_root):
    ds = datasets.Food101(food_root, split="test", transform=transforms.ToTensor(),
                          target_transform=lambda y: y + 10)
    x, y = ds[0]
    assert isinstance(x, torch.Tensor) and tuple(x.shape) == (3, 20, 24) and y == 11
    loader = torch.utils.data.DataLoader(ds, batch_size=3)
    xb, yb = next(iter(loader))
    assert tuple(xb.shape) == (3, 3, 20, 24) and yb.tolist() == [11, 10, 10]


def test_food101_bad_split_and_missing_data(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="Unknown value 'val' for argument split"):
        datasets.Food101(str(tmp_path), split="val")
    with pytest.raises(RuntimeError, match="Dataset not found. You can use download=True"):
        datasets.Food101(str(tmp_path))

    def offline(*args, **kwargs):
        raise urllib.error.URLError("network is unreachable")

    monkeypatch.setattr(dutils.urllib.request, "urlopen", offline)
    with pytest.raises(RuntimeError) as e:
        datasets.Food101(str(tmp_path), download=True)
    assert "food-101.tar.gz" in str(e.value) and "cannot reach the network" in str(e.value)
    assert "\n" not in str(e.value)


def test_lsun_is_refused_by_name():
    with pytest.raises(AttributeError, match=r"torchvision.datasets.LSUN is not supported by msnb yet.*lmdb"):
        datasets.LSUN
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchSet'"):
        datasets.NoSuchSet
