"""msnb implementation of ``torchvision.transforms`` (v1 API) and ``transforms.functional``."""

from . import functional
from .functional import InterpolationMode
from .transforms import (CenterCrop, ColorJitter, Compose, ConvertImageDtype, FiveCrop, Grayscale, Lambda,
                         Normalize, Pad, PILToTensor, RandomApply, RandomChoice, RandomCrop, RandomGrayscale,
                         RandomHorizontalFlip, RandomErasing, RandomOrder, RandomResizedCrop, RandomRotation, RandomVerticalFlip,
                         Resize, TenCrop, ToPILImage, ToTensor)

__all__ = [
    "functional", "InterpolationMode", "Compose", "ToTensor", "PILToTensor", "ToPILImage", "ConvertImageDtype",
    "Normalize", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip",
    "RandomVerticalFlip", "RandomRotation", "ColorJitter", "Grayscale", "RandomGrayscale", "Pad", "Lambda",
    "RandomApply", "RandomChoice", "RandomOrder", "FiveCrop", "TenCrop", "RandomErasing",
]
