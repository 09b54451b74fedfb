"""msnb implementation of ``torch.nn.parallel``.

``DistributedDataParallel`` (in ``distributed.py``) averages gradients across
the processes of a ``torch.distributed`` job.

msnb runs a process on one device, so ``DataParallel`` runs its module on
that device (as PyTorch's ``DataParallel`` does when it has one device): the
wrapper exists so code written for several GPUs runs unchanged, state-dict
keys carry the ``module.`` prefix, and ``.module`` is the wrapped model.
"""

from __future__ import annotations

from ..modules.module import Module
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _check_devices(device_ids, output_device):
    from ..._device import device as _device
    for d in list(device_ids or []) + ([output_device] if output_device is not None else []):
        index = d.index if isinstance(d, _device) else d
        if isinstance(index, int) and index > 0:
            raise RuntimeError(f"msnb runs a process on one device: device {index} does not exist "
                               "(use device_ids=None or [0])")


class DataParallel(Module):
    """msnb implementation of ``torch.nn.DataParallel`` (one device: runs ``module`` on it)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        _check_devices(device_ids, output_device)
        self.module = module
        self.device_ids = [0] if device_ids is None else list(device_ids)
        self.output_device = output_device if output_device is not None else self.device_ids[0] \
            if self.device_ids else None
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """msnb implementation of ``torch.nn.parallel.data_parallel`` (one device)."""
    _check_devices(device_ids, output_device)
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.parallel")
