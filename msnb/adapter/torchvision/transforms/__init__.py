"""msnb implementation of ``torchvision.transforms`` (v1 API) and ``transforms.functional``."""

from . import functional
from .autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide
from .functional import InterpolationMode
from .transforms import (CenterCrop, ColorJitter, Compose, ConvertImageDtype, FiveCrop, Grayscale, Lambda,
                         Normalize, Pad, PILToTensor, RandomAdjustSharpness, RandomAffine, RandomApply,
                         RandomAutocontrast, RandomChoice, RandomCrop, RandomEqualize, RandomErasing,
                         RandomGrayscale, RandomHorizontalFlip, RandomInvert, RandomOrder, RandomPosterize,
                         RandomResizedCrop, RandomRotation, RandomSolarize, RandomVerticalFlip, Resize, TenCrop,
                         ToPILImage, ToTensor)

__all__ = [
    "functional", "InterpolationMode", "Compose", "ToTensor", "PILToTensor", "ToPILImage", "ConvertImageDtype",
    "Normalize", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip",
    "RandomVerticalFlip", "RandomRotation", "ColorJitter", "Grayscale", "RandomGrayscale", "Pad", "Lambda",
    "RandomApply", "RandomChoice", "RandomOrder", "FiveCrop", "TenCrop", "RandomErasing",
    "RandomInvert", "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast",
    "RandomEqualize", "RandomAffine", "AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix",
]
