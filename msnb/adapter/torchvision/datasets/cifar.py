"""msnb implementation of ``torchvision.datasets.CIFAR10`` and ``CIFAR100``.

Reads ``<root>/cifar-10-batches-py/{data_batch_1..5,test_batch,batches.meta}`` and
``<root>/cifar-100-python/{train,test,meta}``.  The batch files are pickles of
plain dicts; they are loaded with :class:`RestrictedUnpickler`, which only
resolves builtin containers and numpy's array reconstruction functions, so a
dataset file can never run code.

Integrity: with ``download=False`` the files only need to be present (md5s
are not checked, so small hand-made fixtures load); with ``download=True``
files are md5-checked against torchvision's constants, and if anything is
missing or wrong the archive is downloaded (one ``RuntimeError`` when offline).
"""

from __future__ import annotations

import os
import pickle

import numpy as np
from PIL import Image

from .utils import check_integrity, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100", "RestrictedUnpickler", "restricted_load"]


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickler that resolves only data types: builtins containers/scalars and numpy reconstruction."""

    _ALLOWED = {
        ("builtins", "list"), ("builtins", "dict"), ("builtins", "tuple"), ("builtins", "set"),
        ("builtins", "frozenset"), ("builtins", "bytearray"), ("builtins", "bytes"), ("builtins", "str"),
        ("builtins", "int"), ("builtins", "float"), ("builtins", "complex"), ("builtins", "bool"),
        ("__builtin__", "list"), ("__builtin__", "dict"), ("__builtin__", "tuple"), ("__builtin__", "set"),
        ("__builtin__", "frozenset"), ("__builtin__", "bytearray"), ("__builtin__", "str"),
        ("__builtin__", "unicode"), ("__builtin__", "int"), ("__builtin__", "long"), ("__builtin__", "float"),
        ("_codecs", "encode"),
        ("numpy", "ndarray"), ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "scalar"),
        ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    }

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            if module == "__builtin__":
                module = "builtins"
                name = {"unicode": "str", "long": "int"}.get(name, name)
            if module == "_codecs":
                import codecs
                return codecs.encode
            if module.startswith("numpy._core") and not hasattr(np, "_core"):
                module = module.replace("numpy._core", "numpy.core")
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"msnb refuses to load {module}.{name} from a dataset pickle: only plain data "
            f"(dicts, lists, numpy arrays) is allowed")


def restricted_load(path, encoding="latin1"):
    with open(path, "rb") as f:
        return RestrictedUnpickler(f, encoding=encoding).load()


class CIFAR10(VisionDataset):
    """`CIFAR10 <https://www.cs.toronto.edu/~kriz/cifar.html>`_ from ``<root>/cifar-10-batches-py``."""

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [
        ["data_batch_1", "c99cafc152244af753f735de768cd75f"],
        ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
        ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
        ["data_batch_4", "634d18415352ddfa80567beed471001a"],
        ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"],
    ]
    test_list = [
        ["test_batch", "40351d587109b95175f43aff81a1287e"],
    ]
    meta = {
        "filename": "batches.meta",
        "key": "label_names",
        "md5": "5ff9c542aee3614f3951f8cda6e48888",
    }

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity(check_md5=False):
            raise RuntimeError(
                f"Dataset not found or corrupted. You can use download=True to download it, or extract "
                f"{self.filename} ({self.url}) into {os.path.abspath(self.root)} so that "
                f"{os.path.join(os.path.abspath(self.root), self.base_folder)} exists")
        downloaded_list = self.train_list if self.train else self.test_list
        data = []
        targets = []
        for file_name, _ in downloaded_list:
            entry = restricted_load(os.path.join(self.root, self.base_folder, file_name))
            entry = {k.decode("latin1") if isinstance(k, bytes) else k: v for k, v in entry.items()}
            data.append(np.asarray(entry["data"], dtype=np.uint8))
            if "labels" in entry:
                targets.extend(entry["labels"])
            else:
                targets.extend(entry["fine_labels"])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))  # HWC, like torchvision
        self.targets = [int(t) for t in targets]
        self._load_meta()

    def _load_meta(self):
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not check_integrity(path):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use download=True to download it")
        data = restricted_load(path)
        data = {k.decode("latin1") if isinstance(k, bytes) else k: v for k, v in data.items()}
        self.classes = [c.decode("latin1") if isinstance(c, bytes) else c for c in data[self.meta["key"]]]
        self.class_to_idx = {_class: i for i, _class in enumerate(self.classes)}

    def __getitem__(self, index):
        img, target = self.data[index], self.targets[index]
        img = Image.fromarray(np.ascontiguousarray(img))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    def _check_integrity(self, check_md5=True):
        for filename, md5 in self.train_list + self.test_list + [[self.meta["filename"], self.meta["md5"]]]:
            fpath = os.path.join(self.root, self.base_folder, filename)
            if not check_integrity(fpath, md5 if check_md5 else None):
                return False
        return True

    def download(self):
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)

    def extra_repr(self):
        split = "Train" if self.train is True else "Test"
        return f"Split: {split}"


class CIFAR100(CIFAR10):
    """`CIFAR100 <https://www.cs.toronto.edu/~kriz/cifar.html>`_ from ``<root>/cifar-100-python``."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [
        ["train", "16019d7e3df5f24257cddd939b257f8d"],
    ]
    test_list = [
        ["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"],
    ]
    meta = {
        "filename": "meta",
        "key": "fine_label_names",
        "md5": "7973b15100ade9c7d40fb424638fde48",
    }
