"""``Timer``: a Python statement timed as PyTorch's benchmark utility times it
(real wall-clock measurements with ``time.perf_counter``)."""

from __future__ import annotations

import enum
import textwrap
import time
import timeit

from .common import Measurement, TaskSpec

__all__ = ["Timer", "Language", "timer"]

timer = time.perf_counter


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    """msnb implementation of ``torch.utils.benchmark.Timer`` (Python statements)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            from ...._missing import NotSupportedError, not_supported_message
            raise NotSupportedError(not_supported_message("torch.utils.benchmark.Timer(language='c++')"))
        if global_setup:
            raise ValueError("global_setup is C++ only.")
        # as PyTorch: statements written as indented triple-quoted blocks are dedented and stripped
        stmt = textwrap.dedent(stmt).strip()
        setup = textwrap.dedent(setup).strip()
        import msnb.adapter.torch as torch_module
        env_globals = dict(globals or {})
        env_globals.setdefault("torch", torch_module)
        self._globals = env_globals
        self._timer = timer
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                   sub_label=sub_label, description=description, env=env,
                                   num_threads=num_threads)
        self._timeit = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=env_globals)

    def _run(self, number):
        return self._timeit.timeit(number)

    def timeit(self, number=1000000):
        """``number`` runs of the statement (after a short warm-up), as one measurement."""
        self._run(max(number // 100, 2))
        return Measurement(number, [self._run(number)], self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time):
        """Runs per block: enough that one block takes at least a hundredth of ``min_run_time``."""
        self._run(1)  # warm-up: first calls compile kernels
        number = 1
        while True:
            if self._run(number) >= min_run_time / 100 or number >= 10 ** 9:
                return number
            number *= 10

    def _blocks(self, number, min_run_time, max_run_time, stop, callback):
        times = []
        total = 0.0
        while total < min_run_time or not stop(times):
            t = self._run(number)
            times.append(t)
            total += t
            if callback is not None:
                callback(number, t)
            if max_run_time is not None and total >= max_run_time:
                break
        return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of runs until ``min_run_time`` seconds have been measured."""
        number = self._block_size(min_run_time)
        times = self._blocks(number, min_run_time, None, lambda ts: True, callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks until the interquartile range is within ``threshold`` of the median (or ``max_run_time``)."""
        number = self._block_size(0.05)

        def stop(ts):
            return len(ts) > 3 and Measurement(number, ts, self._task_spec).meets_confidence(threshold)

        times = self._blocks(number, min_run_time, max_run_time, stop, callback)
        return Measurement(number, times, self._task_spec)

    def collect_callgrind(self, *args, **kwargs):
        from ...._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message("torch.utils.benchmark.Timer.collect_callgrind"))
