"""msnb implementation of ``torch.utils.benchmark``: ``Timer`` (real wall-clock
measurements of Python statements), ``Measurement`` and ``Compare``."""

from __future__ import annotations

from . import utils
from .utils.common import Measurement, TaskSpec, select_unit, trim_sigfig, unit_to_english
from .utils.compare import Colorize, Compare
from .utils.timer import Language, Timer, timer

__all__ = ["Timer", "Measurement", "Compare", "Colorize", "Language", "TaskSpec", "select_unit", "trim_sigfig",
           "unit_to_english", "timer", "utils"]

from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.utils.benchmark")
