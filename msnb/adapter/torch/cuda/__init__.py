"""msnb's ``torch.cuda``: CUDA-written code runs on the active MindSpore device.

``is_available()`` answers whether an accelerator (Ascend) is in use, so
``device = "cuda" if torch.cuda.is_available() else "cpu"`` picks it; and
because every device name maps to the active device, code that skips the
check and says ``.cuda()`` runs too."""

from __future__ import annotations

import contextlib

from ..._ms import device_target

__all__ = ["is_available", "device_count", "current_device", "set_device", "get_device_name",
           "synchronize", "empty_cache", "manual_seed", "manual_seed_all", "memory_allocated",
           "max_memory_allocated", "reset_peak_memory_stats", "device", "is_bf16_supported",
           "get_device_capability", "memory_reserved", "max_memory_reserved", "mem_get_info", "Event"]


def is_available() -> bool:
    return device_target() == "Ascend"


def device_count() -> int:
    return 1 if is_available() else 0


def current_device() -> int:
    return 0


def set_device(device) -> None:
    pass


def get_device_name(device=None) -> str:
    return "Ascend (via MindSpore)" if is_available() else "cpu"


def get_device_capability(device=None):
    return (0, 0)


def synchronize(device=None) -> None:
    import mindspore as ms
    ms.runtime.synchronize()


def empty_cache() -> None:
    """Releases MindSpore's cached device memory (nothing is cached on its CPU device)."""
    import mindspore as ms
    ms.runtime.empty_cache()


def manual_seed(seed) -> None:
    from .._ops.random import manual_seed as _ms
    _ms(seed)


manual_seed_all = manual_seed


def _runtime(name):
    def fn(device=None):
        import mindspore as ms
        return getattr(ms.runtime, name)()
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"msnb implementation of ``torch.cuda.{name}``: MindSpore's ``mindspore.runtime.{name}`` "
                  "for the active device (0 on its CPU device, which has no caching allocator).")
    return fn


memory_allocated, max_memory_allocated, memory_reserved, max_memory_reserved, reset_peak_memory_stats = (
    _runtime(n) for n in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
                          "reset_peak_memory_stats"))


def mem_get_info(device=None) -> tuple[int, int]:
    """``(free, total)`` bytes of the active device's memory.  On MindSpore's CPU
    device that is the host's RAM (available and physical pages), so CUDA-written
    code sizing its batches by free memory runs; on Ascend msnb has not measured
    MindSpore's device-memory query and refuses by name."""
    if is_available():
        from .._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message("torch.cuda.mem_get_info on Ascend"))
    import os
    page = os.sysconf("SC_PAGE_SIZE")
    return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page


def is_bf16_supported() -> bool:
    return is_available()


@contextlib.contextmanager
def device(idx):  # noqa: F811 - torch.cuda.device context manager
    yield


from . import amp  # noqa: E402 - torch.cuda.amp, the deprecated CUDA spellings of torch.amp


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.cuda")


class Event:
    """msnb implementation of ``torch.cuda.Event``.  Without an accelerator it is
    PyTorch's CPU-only dummy class (making one raises its RuntimeError); on
    Ascend an event notes the host time after synchronizing the device, so
    ``elapsed_time`` measures the work between two records."""

    def __new__(cls, *args, **kwargs):
        if not is_available():
            raise RuntimeError(f"Tried to instantiate dummy base class {cls.__name__}")
        return super().__new__(cls)

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, external=False):
        self.enable_timing = enable_timing
        self._time = None

    def record(self, stream=None):
        synchronize()
        import time
        self._time = time.perf_counter()

    def query(self):
        return True

    def synchronize(self):
        synchronize()

    def wait(self, stream=None):
        synchronize()

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0
