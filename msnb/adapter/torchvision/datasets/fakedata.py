"""msnb implementation of ``torchvision.datasets.FakeData``: random images, reproducible per index.

Each item is drawn from a numpy generator seeded with ``index + random_offset``
(the global adapter RNG is left untouched, as torchvision restores its state);
the pixel values differ from real torchvision's for the same index."""

from __future__ import annotations

import numpy as np

from .vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        super().__init__(None, transform=transform, target_transform=target_transform)
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size
        self.random_offset = random_offset

    def __getitem__(self, index):
        from ..transforms import functional as F

        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        rng = np.random.Generator(np.random.PCG64(int(index) + int(self.random_offset)))
        img = rng.standard_normal(tuple(self.image_size)).astype(np.float32)
        target = int(rng.integers(0, self.num_classes))
        if img.ndim == 3:
            img = img.transpose(1, 2, 0)
        # torchvision does ``(x * 255).byte()``: out-of-range values wrap modulo 256
        img = F.to_pil_image(((img * 255).astype(np.int64) % 256).astype(np.uint8))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return self.size
