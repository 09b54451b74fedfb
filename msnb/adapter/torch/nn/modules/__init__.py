"""``torch.nn.modules``."""

from .container import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import Module

from . import container as _c, layers as _l, loss as _s

__all__ = ["Module"] + _c.__all__ + _l.__all__ + _s.__all__
