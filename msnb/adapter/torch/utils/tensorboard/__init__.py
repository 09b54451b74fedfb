"""msnb implementation of ``torch.utils.tensorboard``: ``SummaryWriter``
writing TensorBoard event files with the ``tensorboard`` package's own event
writer and protocol buffers (install ``tensorboard`` to use it, as with
PyTorch).  Tensors are read as numpy arrays; the files are the ones
``tensorboard --logdir`` reads."""

from __future__ import annotations

try:
    import tensorboard  # noqa: F401
except ImportError:  # PyTorch's own message when the package is missing
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from None

from .writer import SummaryWriter

__all__ = ["SummaryWriter"]


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.utils.tensorboard")
