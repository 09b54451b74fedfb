"""msnb implementation of ``torch.nn``."""

from . import functional, init, parallel, utils
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedParameter

__all__ = ["functional", "init", "parallel", "utils", "DataParallel", "Parameter", "Buffer", "UninitializedParameter"] + _modules_all


def __getattr__(name):
    from .._api_names import MODULE_NAMES
    if name in MODULE_NAMES.get("torch.nn", ()):
        raise AttributeError(f"torch.nn.{name} is not supported by msnb yet (see the support list: "
                             "python -m msnb.adapter.support --markdown)")
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")
