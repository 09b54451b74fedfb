"""msnb implementation of ``torch.optim``."""

from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


def __getattr__(name):
    if name == "lr_scheduler":
        raise AttributeError("torch.optim.lr_scheduler is not supported by msnb yet (see the support list: "
                             "python -m msnb.adapter.support --markdown)")
    from .._api_names import MODULE_NAMES
    if name in MODULE_NAMES.get("torch.optim", ()):
        raise AttributeError(f"torch.optim.{name} is not supported by msnb yet (see the support list: "
                             "python -m msnb.adapter.support --markdown)")
    raise AttributeError(f"module 'torch.optim' has no attribute '{name}'")
