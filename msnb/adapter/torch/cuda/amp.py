"""msnb's ``torch.cuda.amp``: PyTorch's deprecated CUDA spellings of AMP.

Same objects as :mod:`msnb.adapter.torch.amp` with ``device_type="cuda"``
(which in msnb means MindSpore's device), and the same ``FutureWarning`` that
PyTorch 2.13 gives for these spellings.
"""

from __future__ import annotations

import warnings

from ..amp import autocast_mode as _am
from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_am.autocast):  # noqa: N801 - torch spells it in lower case
    """msnb implementation of ``torch.cuda.amp.autocast`` (deprecated in PyTorch)."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        from .. import _dtype as D

        super().__init__("cuda", dtype=D.float16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """msnb implementation of ``torch.cuda.amp.GradScaler`` (deprecated in PyTorch)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """msnb implementation of ``torch.cuda.amp.custom_fwd`` (deprecated in PyTorch)."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _am.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """msnb implementation of ``torch.cuda.amp.custom_bwd`` (deprecated in PyTorch)."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _am.custom_bwd(bwd, device_type="cuda")


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.cuda.amp")
