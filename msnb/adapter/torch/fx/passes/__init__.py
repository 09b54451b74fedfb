"""msnb implementation of ``torch.fx.passes``: graph passes (``shape_prop``)."""

from ..._missing import module_getattr
from . import shape_prop

__all__ = ["shape_prop"]

__getattr__ = module_getattr("torch.fx.passes")
