"""msnb implementation of ``torchvision.transforms._presets.ImageClassification``.

What ``SomeModel_Weights.X.transforms()`` returns: resize the shorter side,
centre-crop, convert to float in [0, 1], normalise -- with the sizes,
interpolation and mean/std recorded for those weights.
"""

from __future__ import annotations

from . import functional as F
from .functional import InterpolationMode
from .transforms import _Module

__all__ = ["ImageClassification"]


class ImageClassification(_Module):
    """The evaluation preset of torchvision's classification weights (same steps and ``repr``)."""

    def __init__(self, *, crop_size, resize_size=256, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        import msnb.adapter.torch as torch
        img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, torch.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, torch.float)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        lines = [f"crop_size={self.crop_size}", f"resize_size={self.resize_size}", f"mean={self.mean}",
                 f"std={self.std}", f"interpolation={self.interpolation}"]
        return type(self).__name__ + "(\n    " + "\n    ".join(lines) + "\n)"
