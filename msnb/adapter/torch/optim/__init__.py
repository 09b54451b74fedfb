"""msnb implementation of ``torch.optim``: optimizers and ``lr_scheduler``."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "LBFGS", "lr_scheduler"]


def __getattr__(name):
    from .._api_names import MODULE_NAMES
    if name in MODULE_NAMES.get("torch.optim", ()):
        raise AttributeError(f"torch.optim.{name} is not supported by msnb yet (see the support list: "
                             "python -m msnb.adapter.support --markdown)")
    raise AttributeError(f"module 'torch.optim' has no attribute '{name}'")
