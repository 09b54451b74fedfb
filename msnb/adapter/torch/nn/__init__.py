"""msnb implementation of ``torch.nn``."""

from . import functional, init, utils
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedParameter

__all__ = ["functional", "init", "utils", "Parameter", "Buffer", "UninitializedParameter"] + _modules_all


from .._missing import module_getattr as _module_getattr

__getattr__ = _module_getattr("torch.nn")
