"""msnb implementation of ``torchvision`` on MindSpore: ``transforms``, ``datasets`` and ``utils``.

``torchvision.models`` is not provided yet; accessing it raises a clear
``AttributeError``.
"""

from . import datasets, transforms, utils

__version__ = "0.19.0+msnb"

__all__ = ["datasets", "transforms", "utils", "get_image_backend", "set_image_backend", "get_video_backend",
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
    if name == "models":
        raise AttributeError(
            "torchvision.models is not supported by msnb yet: build the network with torch.nn "
            "(or run this cell without %%torch_on_ascend)")
    raise AttributeError(f"module 'torchvision' has no attribute {name!r}")
