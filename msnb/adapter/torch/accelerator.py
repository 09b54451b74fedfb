"""msnb's ``torch.accelerator``: reports MindSpore's active device."""

from __future__ import annotations

from ._device import active_device, device
from .._ms import device_target

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "set_device_index", "synchronize"]


def is_available() -> bool:
    return device_target() == "Ascend"


def current_accelerator(check_available=False):
    return active_device() if is_available() else None


def device_count() -> int:
    return 1 if is_available() else 0


def current_device_index() -> int:
    return 0


def set_device_index(idx) -> None:
    pass


def synchronize(device=None) -> None:
    import mindspore as ms
    ms.runtime.synchronize()


from ._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.accelerator")
