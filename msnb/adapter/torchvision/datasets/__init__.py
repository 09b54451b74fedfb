"""msnb implementation of ``torchvision.datasets`` (MNIST, FashionMNIST, CIFAR10/100, folders, FakeData)."""

from . import utils
from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "DatasetFolder", "ImageFolder", "FakeData",
           "VisionDataset", "utils"]
