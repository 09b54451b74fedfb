"""msnb implementation of ``torchvision`` on MindSpore: ``transforms``, ``datasets``, ``models``, ``io``
(images, with Pillow), ``ops`` (boxes, NMS, RoI pooling) and ``utils``.

``torchvision.models`` provides a set of classification networks without
pretrained-weight downloads (see ``msnb.adapter.torchvision.models``).
"""

from . import datasets, io, models, ops, transforms, utils

__version__ = "0.19.0+msnb"

__all__ = ["datasets", "io", "models", "ops", "transforms", "utils", "get_image_backend", "set_image_backend", "get_video_backend",
           "set_video_backend"]

_image_backend = "PIL"


def set_image_backend(backend):
    global _image_backend
    if backend not in ["PIL"]:
        raise ValueError(f"Invalid backend '{backend}'. msnb supports only 'PIL'")
    _image_backend = backend


def get_image_backend():
    return _image_backend


def set_video_backend(backend):
    raise NotImplementedError("torchvision video backends are not supported by msnb")


def get_video_backend():
    return "pyav"


def __getattr__(name):
    raise AttributeError(f"module 'torchvision' has no attribute {name!r}")
