"""msnb's ``torch.utils.benchmark.utils``: the timer, measurement and comparison modules."""

from . import common, compare, timer

__all__ = ["common", "compare", "timer"]

from ...._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.utils.benchmark.utils")
