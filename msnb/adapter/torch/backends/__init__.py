"""msnb's ``torch.backends``: the cuDNN/MPS/CUDA switches users set are
accepted and recorded; they have no effect, because MindSpore picks its own
kernels (``is_available()`` says False for each)."""

from . import cuda, cudnn, mps

__all__ = ["cudnn", "mps", "cuda"]


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.backends")
