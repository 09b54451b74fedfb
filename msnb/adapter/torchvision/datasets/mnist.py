"""msnb implementation of ``torchvision.datasets.MNIST`` and ``FashionMNIST``.

Reads torchvision's layout ``<root>/<ClassName>/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte``
(uncompressed, as torchvision leaves them after download) and also accepts the
``.gz`` files in the same folder.  The idx format is parsed with numpy.  The
legacy ``processed/training.pt`` files (torch.save pickles) are not read.
``data`` / ``targets`` are adapter tensors (uint8 N x 28 x 28 / int64 N) and
can be reassigned (e.g. to select a subset).
"""

from __future__ import annotations

import gzip
import os

import numpy as np
from PIL import Image

from .utils import check_integrity, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "read_sn3_pascalvincent_tensor", "read_image_file", "read_label_file"]

_SN3_TYPES = {
    8: np.dtype(np.uint8), 9: np.dtype(np.int8), 11: np.dtype(">i2"), 12: np.dtype(">i4"),
    13: np.dtype(">f4"), 14: np.dtype(">f8"),
}


def _open_maybe_gz(path):
    if os.path.isfile(path):
        with open(path, "rb") as f:
            head = f.read(2)
        if head == b"\x1f\x8b":
            return gzip.open(path, "rb")
        return open(path, "rb")
    if os.path.isfile(path + ".gz"):
        return gzip.open(path + ".gz", "rb")
    raise FileNotFoundError(path)


def read_sn3_pascalvincent_tensor(path, strict=True):
    """Parse an idx (SN3 / Pascal Vincent) file into a numpy array (native byte order)."""
    with _open_maybe_gz(path) as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path} is not an idx-ubyte file (bad magic number)")
    ty = data[2]
    nd = data[3]
    if ty not in _SN3_TYPES:
        raise ValueError(f"{path}: unknown idx data type 0x{ty:02x}")
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(nd)]
    dt = _SN3_TYPES[ty]
    count = int(np.prod(dims)) if dims else 1
    offset = 4 * (nd + 1)
    if len(data) - offset < count * dt.itemsize:
        raise ValueError(f"{path}: file is truncated ({len(data) - offset} bytes for shape {dims})")
    arr = np.frombuffer(data, dtype=dt, count=count, offset=offset).reshape(dims)
    return arr.astype(dt.newbyteorder("="))


def read_label_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != np.uint8:
        raise TypeError(f"x should be of dtype uint8 instead of {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"x should have 1 dimension instead of {x.ndim}")
    return x.astype(np.int64)


def read_image_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != np.uint8:
        raise TypeError(f"x should be of dtype uint8 instead of {x.dtype}")
    if x.ndim != 3:
        raise ValueError(f"x should have 3 dimension instead of {x.ndim}")
    return x


def _to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    return np.asarray(x)


class MNIST(VisionDataset):
    """`MNIST <http://yann.lecun.com/exdb/mnist/>`_ from ``<root>/MNIST/raw``."""

    mirrors = [
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
        "http://yann.lecun.com/exdb/mnist/",
    ]

    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]

    training_file = "training.pt"
    test_file = "test.pt"
    classes = [
        "0 - zero", "1 - one", "2 - two", "3 - three", "4 - four",
        "5 - five", "6 - six", "7 - seven", "8 - eight", "9 - nine",
    ]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError(
                f"Dataset not found. You can use download=True to download it, or put the files "
                f"{[os.path.splitext(n)[0] for n, _ in self.resources]} (optionally .gz) in {self.raw_folder}")
        self._data_np, self._targets_np = self._load_data()
        self._data_t = self._targets_t = None

    # data / targets as adapter tensors, numpy underneath -------------------------------------------
    @property
    def data(self):
        if self._data_t is None:
            from msnb.adapter import torch
            self._data_t = torch.from_numpy(np.ascontiguousarray(self._data_np))
        return self._data_t

    @data.setter
    def data(self, value):
        self._data_np = _to_numpy(value)
        self._data_t = None

    @property
    def targets(self):
        if self._targets_t is None:
            from msnb.adapter import torch
            self._targets_t = torch.from_numpy(np.ascontiguousarray(self._targets_np))
        return self._targets_t

    @targets.setter
    def targets(self, value):
        self._targets_np = _to_numpy(value).astype(np.int64)
        self._targets_t = None

    @property
    def train_labels(self):
        return self.targets

    @property
    def test_labels(self):
        return self.targets

    @property
    def train_data(self):
        return self.data

    @property
    def test_data(self):
        return self.data

    def _load_data(self):
        image_file = f"{'train' if self.train else 't10k'}-images-idx3-ubyte"
        data = read_image_file(os.path.join(self.raw_folder, image_file))
        label_file = f"{'train' if self.train else 't10k'}-labels-idx1-ubyte"
        targets = read_label_file(os.path.join(self.raw_folder, label_file))
        if len(data) != len(targets):
            raise RuntimeError(f"{image_file} has {len(data)} images but {label_file} has {len(targets)} labels")
        return data, targets

    def __getitem__(self, index):
        img, target = self._data_np[index], int(self._targets_np[index])
        img = Image.fromarray(np.ascontiguousarray(img), mode="L")
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self._data_np)

    @property
    def raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self):
        return {_class: i for i, _class in enumerate(self.classes)}

    def _check_exists(self):
        for url, _ in self.resources:
            name = os.path.splitext(os.path.basename(url))[0]
            path = os.path.join(self.raw_folder, name)
            if not (check_integrity(path) or check_integrity(path + ".gz")):
                return False
        return True

    def download(self):
        """Download the missing files.  Present files are kept: the uncompressed idx file (torchvision
        checks only its presence) or a ``.gz`` whose md5 matches."""
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            name = os.path.splitext(filename)[0]
            if check_integrity(os.path.join(self.raw_folder, name)):
                continue
            gz = os.path.join(self.raw_folder, filename)
            if check_integrity(gz, md5):
                continue
            errors = []
            for mirror in self.mirrors:
                url = f"{mirror}{filename}"
                try:
                    download_and_extract_archive(url, download_root=self.raw_folder, filename=filename, md5=md5)
                except RuntimeError as error:
                    errors.append(str(error))
                    continue
                break
            else:
                raise RuntimeError(
                    f"Error downloading {filename} for {self.__class__.__name__}: tried "
                    f"{', '.join(m + filename for m in self.mirrors)}. Put {filename} (or the extracted "
                    f"{name}) in {os.path.abspath(self.raw_folder)} and run again. Details: {errors[-1]}")

    def extra_repr(self):
        split = "Train" if self.train is True else "Test"
        return f"Split: {split}"


class FashionMNIST(MNIST):
    """`Fashion-MNIST <https://github.com/zalandoresearch/fashion-mnist>`_ from ``<root>/FashionMNIST/raw``."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]

    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
