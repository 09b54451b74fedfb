"""msnb's ``torch.amp``: autocast, GradScaler and MindSpore's AMP levels.

* :mod:`.autocast_mode` -- ``torch.autocast`` and the op-side helpers
  (``autocast_inputs``, ``autocast_op``) the adapter's ops call;
* :mod:`.grad_scaler` -- ``torch.amp.GradScaler`` (dynamic loss scaling);
* :mod:`.policy` -- ``--amp O0|O1|O2|O3`` applied to ``nn`` modules.
"""

from __future__ import annotations

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.amp")
