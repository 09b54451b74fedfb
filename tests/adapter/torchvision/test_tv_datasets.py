"""torchvision.datasets on msnb, read from small files in the real on-disk formats."""

from __future__ import annotations

import os
import pickle
import urllib.error

import numpy as np
import pytest
from PIL import Image

import msnb.adapter.torch as torch
from msnb.adapter.torchvision import datasets, transforms
from msnb.adapter.torchvision.datasets import cifar as cifar_mod
from msnb.adapter.torchvision.datasets import utils as dutils
from msnb.adapter.torchvision.transforms import InterpolationMode

from .conftest import CIFAR10_NAMES


@pytest.fixture
def no_network(monkeypatch):
    calls = []

    def fail(*args, **kwargs):
        calls.append(args[0].full_url if hasattr(args[0], "full_url") else args[0])
        raise urllib.error.URLError("network is unreachable")

    monkeypatch.setattr(dutils.urllib.request, "urlopen", fail)
    return calls


# --- MNIST ----------------------------------------------------------------------------------------
def test_mnist_raw_files(mnist_root):
    root, arrays = mnist_root
    ds = datasets.MNIST(str(root), train=True)
    assert len(ds) == 7
    img, target = ds[3]
    assert isinstance(img, Image.Image) and img.mode == "L" and img.size == (28, 28)
    np.testing.assert_array_equal(np.asarray(img), arrays["train-images-idx3-ubyte"][3])
    assert isinstance(target, int) and target == int(arrays["train-labels-idx1-ubyte"][3])
    assert ds.classes[0] == "0 - zero" and ds.class_to_idx["9 - nine"] == 9
    assert tuple(ds.data.shape) == (7, 28, 28) and ds.data.dtype == torch.uint8
    assert ds.targets.dtype == torch.int64
    test = datasets.MNIST(root, train=False, transform=transforms.ToTensor(), target_transform=lambda y: y + 100)
    assert len(test) == 3
    x, y = test[1]
    np.testing.assert_array_equal(x.numpy(), arrays["t10k-images-idx3-ubyte"][1][None] / np.float32(255))
    assert y == int(arrays["t10k-labels-idx1-ubyte"][1]) + 100
    assert "Split: Test" in repr(test)


def test_mnist_subset_by_assignment(mnist_root):
    root, arrays = mnist_root
    ds = datasets.MNIST(root)
    ds.data = ds.data[:2]
    ds.targets = ds.targets[:2]
    assert len(ds) == 2
    np.testing.assert_array_equal(np.asarray(ds[1][0]), arrays["train-images-idx3-ubyte"][1])


def test_fashion_mnist_gz(fashion_gz_root):
    root, arrays = fashion_gz_root
    ds = datasets.FashionMNIST(root, train=True)
    assert len(ds) == 5
    img, target = ds[4]
    np.testing.assert_array_equal(np.asarray(img), arrays["train-images-idx3-ubyte"][4])
    assert target == int(arrays["train-labels-idx1-ubyte"][4])
    assert ds.classes[9] == "Ankle boot"
    assert len(datasets.FashionMNIST(root, train=False)) == 2


def test_mnist_missing_without_download(tmp_path):
    with pytest.raises(RuntimeError, match="download=True"):
        datasets.MNIST(tmp_path)


def test_mnist_download_present_skips_network(mnist_root, no_network):
    root, _ = mnist_root
    ds = datasets.MNIST(root, download=True)
    assert len(ds) == 7 and no_network == []


def test_mnist_download_offline_one_clear_error(tmp_path, no_network):
    with pytest.raises(RuntimeError) as info:
        datasets.MNIST(tmp_path, download=True)
    msg = str(info.value)
    assert "train-images-idx3-ubyte.gz" in msg
    assert "https://ossci-datasets.s3.amazonaws.com/mnist/train-images-idx3-ubyte.gz" in msg
    assert os.path.join(str(tmp_path), "MNIST", "raw") in msg
    assert len(no_network) == 2  # both mirrors tried, then one error


# --- CIFAR ----------------------------------------------------------------------------------------
def test_cifar10_train_and_test(cifar10_root):
    root, batches = cifar10_root
    ds = datasets.CIFAR10(root, train=True)
    train_data = np.vstack([batches[f"data_batch_{i}"][0] for i in range(1, 6)])
    train_labels = sum((batches[f"data_batch_{i}"][1] for i in range(1, 6)), [])
    assert len(ds) == len(train_data) == len(train_labels)
    assert ds.classes == CIFAR10_NAMES
    assert ds.class_to_idx["truck"] == 9
    assert ds.data.shape == (len(train_data), 32, 32, 3)
    for k in (0, len(ds) - 1):
        img, target = ds[k]
        assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (32, 32)
        np.testing.assert_array_equal(np.asarray(img), train_data[k].reshape(3, 32, 32).transpose(1, 2, 0))
        assert target == train_labels[k] and isinstance(target, int)
    test = datasets.CIFAR10(root, train=False)
    assert len(test) == len(batches["test_batch"][0])
    assert test.targets == batches["test_batch"][1]


def test_cifar100(cifar100_root):
    root, out = cifar100_root
    ds = datasets.CIFAR100(root, train=True)
    assert len(ds) == 4 and len(ds.classes) == 100 and ds.classes[7] == "c7"
    img, target = ds[2]
    np.testing.assert_array_equal(np.asarray(img), out["train"][0][2].reshape(3, 32, 32).transpose(1, 2, 0))
    assert target == out["train"][1][2]
    assert len(datasets.CIFAR100(root, train=False)) == 2


def test_cifar_seed_pipeline(cifar10_root):
    """The MSAdapter seed's CIFAR-10 pipeline."""
    root, batches = cifar10_root
    transform = transforms.Compose([
        transforms.Resize((224, 224), interpolation=InterpolationMode.BICUBIC),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.247, 0.2435, 0.2616]),
    ])
    ds = datasets.CIFAR10(root=root, train=True, download=False, transform=transform)
    x, y = ds[0]
    assert isinstance(x, torch.Tensor) and tuple(x.shape) == (3, 224, 224) and x.dtype == torch.float32
    src = Image.fromarray(batches["data_batch_1"][0][0].reshape(3, 32, 32).transpose(1, 2, 0))
    resized = np.asarray(src.resize((224, 224), Image.BICUBIC)).transpose(2, 0, 1).astype(np.float32) / np.float32(255)
    mean = np.array([0.4914, 0.4822, 0.4465], np.float32)[:, None, None]
    std = np.array([0.247, 0.2435, 0.2616], np.float32)[:, None, None]
    np.testing.assert_allclose(x.numpy(), (resized - mean) / std, rtol=1e-5, atol=1e-6)
    assert y == batches["data_batch_1"][1][0]
    batch = torch.stack([ds[i][0] for i in range(3)])
    assert tuple(batch.shape) == (3, 3, 224, 224)


def test_cifar_missing_and_offline(tmp_path, no_network):
    with pytest.raises(RuntimeError, match="download=True"):
        datasets.CIFAR10(tmp_path)
    with pytest.raises(RuntimeError) as info:
        datasets.CIFAR10(tmp_path, download=True)
    msg = str(info.value)
    assert "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz" in msg
    assert str(tmp_path) in msg
    assert no_network == ["https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"]


def test_cifar_download_extracts_present_archive(tmp_path, cifar10_root, monkeypatch, no_network):
    """A present archive with the right md5 is extracted without touching the network."""
    import tarfile

    src_root, _ = cifar10_root
    archive = tmp_path / "dl" / "cifar-10-python.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src_root / "cifar-10-batches-py", arcname="cifar-10-batches-py")
    monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", dutils.calculate_md5(str(archive)))
    ds = datasets.CIFAR10(archive.parent, download=True)
    assert len(ds) > 0 and no_network == []


def test_restricted_unpickler_refuses_code(tmp_path):
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    p = tmp_path / "data_batch_1"
    with open(p, "wb") as f:
        pickle.dump({"data": Evil()}, f)
    with pytest.raises(pickle.UnpicklingError, match="refuses"):
        cifar_mod.restricted_load(p)


# --- folders / fake data --------------------------------------------------------------------------
def test_image_folder(image_folder):
    root, files = image_folder
    ds = datasets.ImageFolder(str(root))
    assert ds.classes == ["bird", "cat", "dog"]
    assert ds.class_to_idx == {"bird": 0, "cat": 1, "dog": 2}
    assert len(ds) == 5  # notes.txt skipped
    expected = [(os.path.join(root, "bird", "d.png"), 0), (os.path.join(root, "bird", "sub", "c.png"), 0),
                (os.path.join(root, "cat", "z.png"), 1), (os.path.join(root, "dog", "a.png"), 2),
                (os.path.join(root, "dog", "b.png"), 2)]
    assert ds.samples == expected and ds.imgs == expected
    assert ds.targets == [0, 0, 1, 2, 2]
    img, target = ds[4]
    assert img.mode == "RGB" and target == 2
    np.testing.assert_array_equal(np.asarray(img), files[os.path.join(root, "dog", "b.png")])
    t = datasets.ImageFolder(root, transform=transforms.ToTensor())[0][0]
    assert tuple(t.shape) == (3, 6, 5)


def test_dataset_folder_options(image_folder):
    root, _ = image_folder
    ds = datasets.DatasetFolder(root, loader=lambda p: p, extensions=(".txt",), allow_empty=True)
    assert len(ds) == 1 and ds[0] == (os.path.join(root, "cat", "notes.txt"), 1)
    ds = datasets.DatasetFolder(root, loader=os.path.basename, is_valid_file=lambda p: p.endswith("a.png"),
                                allow_empty=True)
    assert [s for s in ds] == [("a.png", 2)]
    with pytest.raises(FileNotFoundError):
        datasets.DatasetFolder(root, loader=lambda p: p, extensions=(".txt",))
    with pytest.raises(ValueError):
        datasets.DatasetFolder(root, loader=lambda p: p)


def test_fake_data():
    ds = datasets.FakeData(size=6, image_size=(3, 12, 10), num_classes=4, transform=transforms.ToTensor())
    assert len(ds) == 6
    x, y = ds[2]
    assert tuple(x.shape) == (3, 12, 10) and 0 <= y < 4
    np.testing.assert_array_equal(ds[2][0].numpy(), x.numpy())
    img, _ = datasets.FakeData(size=2, image_size=(1, 8, 8))[0]
    assert img.mode == "L" and img.size == (8, 8)
    with pytest.raises(IndexError):
        ds[6]


def test_check_integrity(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"abc")
    assert dutils.check_integrity(str(p))
    assert dutils.check_integrity(str(p), "900150983cd24fb0d6963f7d28e17f72")
    assert not dutils.check_integrity(str(p), "0" * 32)
    assert not dutils.check_integrity(str(tmp_path / "missing"))
