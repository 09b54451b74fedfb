"""``torch.nn.modules``: one file per family, as in PyTorch."""

from .module import Module
from .container import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403

from . import (activation as _act, batchnorm as _bn, container as _c, conv as _conv, dropout as _do, flatten as _fl,
               linear as _lin, loss as _loss, normalization as _norm, pixelshuffle as _ps, pooling as _pool,
               rnn as _rnn, sparse as _sp, transformer as _tr, padding as _pad, instancenorm as _inorm,
               upsampling as _up, lazy as _lazy, fold as _fold, distance as _dist,
               channelshuffle as _cs)

__all__ = ["Module"]
for _m in (_c, _lin, _conv, _pool, _bn, _norm, _do, _sp, _fl, _ps, _act, _rnn, _tr, _loss, _pad, _inorm, _up, _lazy, _fold,
           _dist, _cs):
    __all__ += _m.__all__
del _m


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.modules")
