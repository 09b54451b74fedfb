"""msnb's ``torch.accelerator``: reports MindSpore's active device."""

from __future__ import annotations

from ._device import active_device, device
from .._ms import device_target

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "current_device_idx",
           "set_device_index", "set_device_idx", "device_index", "synchronize", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
           "empty_cache", "get_memory_info"]


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


current_device_idx, set_device_idx = current_device_index, set_device_index


class device_index:  # noqa: N801 - PyTorch's name
    """msnb implementation of ``torch.accelerator.device_index``: a context manager
    selecting device ``idx`` (``None``: no change).  msnb runs on one MindSpore
    device, which every index names, so it changes nothing."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def get_memory_info(device_index=None) -> tuple[int, int]:
    """``(free, total)`` bytes of the device's memory (``torch.cuda.mem_get_info``'s answer)."""
    from .cuda import mem_get_info
    return mem_get_info(device_index)


def _from_cuda(name):
    def fn(device_index=None):
        from . import cuda
        return getattr(cuda, name)(device_index)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"msnb implementation of ``torch.accelerator.{name}``: ``torch.cuda.{name}``'s answer."
    return fn


memory_allocated, max_memory_allocated, memory_reserved, max_memory_reserved, reset_peak_memory_stats = (
    _from_cuda(n) for n in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
                            "reset_peak_memory_stats"))


def empty_cache() -> None:
    from .cuda import empty_cache as _empty
    _empty()


from ._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.accelerator")
