"""msnb implementation of ``torchvision.datasets.FakeData``: random images, reproducible per index.

Each item is drawn as torchvision draws it: the global generator seeded with
``index + random_offset`` gives ``randn(image_size)`` then the ``randint`` target, and its
state is restored afterwards.  msnb draws PyTorch's random streams, so the images and
labels are real torchvision's for the same index (seeded programs such as
pytorch/examples imagenet ``--dummy`` see the same data)."""

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
        import msnb.adapter.torch as torch
        state = torch.get_rng_state()
        try:
            torch.manual_seed(int(index) + int(self.random_offset))
            img = torch.randn(*self.image_size).numpy()
            target = int(torch.randint(0, self.num_classes, size=(1,), dtype=torch.long)[0])
        finally:
            torch.set_rng_state(state)
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
