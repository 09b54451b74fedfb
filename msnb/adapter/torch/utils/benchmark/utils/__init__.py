"""msnb's ``torch.utils.benchmark.utils``: the timer, measurement and comparison modules."""

from . import common, compare, timer

__all__ = ["common", "compare", "timer"]
