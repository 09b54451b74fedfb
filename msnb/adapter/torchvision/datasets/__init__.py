"""msnb implementation of ``torchvision.datasets`` (MNIST, FashionMNIST, CIFAR10/100, Food101, folders, FakeData)."""

from . import utils
from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .food101 import Food101
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "DatasetFolder", "ImageFolder", "FakeData",
           "VisionDataset", "utils", "Food101"]

#: torchvision datasets msnb refuses by name, and why
_REFUSED = {"LSUN": "its LMDB databases need the 'lmdb' package, which msnb's environment does not provide"}


def __getattr__(name):
    if name in _REFUSED:
        from ...torch._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(f"{not_supported_message('torchvision.datasets.' + name)}: {_REFUSED[name]}")
    raise AttributeError(f"module 'torchvision.datasets' has no attribute {name!r}")
