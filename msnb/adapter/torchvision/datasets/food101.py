"""msnb implementation of ``torchvision.datasets.Food101`` (101 food classes, 101 000 images).

On disk, as torchvision extracts ``food-101.tar.gz``:
``<root>/food-101/images/<class>/<id>.jpg`` and ``<root>/food-101/meta/{train,test}.json``
(``{class: ["<class>/<id>", ...]}``).  Classes are the sorted keys of the split's json.
"""

from __future__ import annotations

import json
from pathlib import Path

from .folder import default_loader
from .utils import download_and_extract_archive
from .vision import VisionDataset

__all__ = ["Food101"]


class Food101(VisionDataset):
    """msnb implementation of ``torchvision.datasets.Food101``: ``(image, label)`` pairs of one split."""

    _URL = "http://data.vision.ee.ethz.ch/cvl/food-101.tar.gz"
    _MD5 = "85eeb15f3717b99a5da872d97d918f87"

    def __init__(self, root, split="train", transform=None, target_transform=None, download=False,
                 loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform)
        if split not in ("train", "test"):
            raise ValueError(f"Unknown value '{split}' for argument split. Valid values are {{'train', 'test'}}.")
        self._split = split
        self._base_folder = Path(self.root) / "food-101"
        self._meta_folder = self._base_folder / "meta"
        self._images_folder = self._base_folder / "images"
        self.loader = loader
        if download:
            self._download()
        if not self._check_exists():
            raise RuntimeError(f"Dataset not found. You can use download=True to download it, or extract "
                               f"food-101.tar.gz ({self._URL}) into {Path(self.root).resolve()} so that "
                               f"{self._images_folder.resolve()} and {self._meta_folder.resolve()} exist")
        metadata = json.loads((self._meta_folder / f"{split}.json").read_text())
        self.classes = sorted(metadata)
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self._labels, self._image_files = [], []
        for label, rel_paths in metadata.items():
            self._labels += [self.class_to_idx[label]] * len(rel_paths)
            self._image_files += [self._images_folder.joinpath(*f"{p}.jpg".split("/")) for p in rel_paths]

    def __len__(self):
        return len(self._image_files)

    def __getitem__(self, idx):
        image = self.loader(self._image_files[idx])
        label = self._labels[idx]
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def extra_repr(self):
        return f"split={self._split}"

    def _check_exists(self):
        return all(folder.is_dir() for folder in (self._meta_folder, self._images_folder))

    def _download(self):
        if self._check_exists():
            return
        download_and_extract_archive(self._URL, download_root=self.root, md5=self._MD5)
