"""``Measurement``: the times of one timed statement and PyTorch's summary of them."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig"]

#: relative interquartile range above which a measurement carries a warning
IQR_WARNING = 0.1
_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What was timed: statement, setup and the labels it is shown under."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + "\n".join(
            "  " + ln for ln in self.stmt.splitlines())

    def summarize(self) -> str:
        lines = [self.title]
        if self.description:
            lines.append(self.description)
        if self.setup and self.setup != "pass":
            if "\n" in self.setup:
                lines.append("setup:\n" + "\n".join("  " + ln for ln in self.setup.splitlines()))
            else:
                lines.append(f"setup: {self.setup}")
        return "\n".join(lines)


def select_unit(t: float):
    """``(unit, scale)``: the largest unit in which ``t`` seconds is at least 1."""
    unit, scale = "ns", 1e-9
    for s, u in _UNITS:
        if t >= s:
            unit, scale = u, s
    return unit, scale


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures."""
    if x == 0 or not math.isfinite(x):
        return x
    digits = n - int(math.floor(math.log10(abs(x)))) - 1
    return round(x, digits)


class Measurement:
    """msnb implementation of ``torch.utils.benchmark.Measurement``: per-run times
    (``raw_times`` each cover ``number_per_run`` runs of the statement)."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        if not raw_times:
            raise ValueError("a Measurement needs at least one time")
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata
        self._sorted = sorted(t / number_per_run for t in self.raw_times)

    def __getattr__(self, name):  # stmt, label, sub_label, ... from the task spec
        spec = self.__dict__.get("task_spec")
        if spec is not None and name in TaskSpec.__dataclass_fields__:
            return getattr(spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        return float(np.percentile(self._sorted, 50))

    @property
    def mean(self) -> float:
        return float(np.mean(self._sorted))

    @property
    def iqr(self) -> float:
        return float(np.percentile(self._sorted, 75) - np.percentile(self._sorted, 25))

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self):
        return self.task_spec.env

    @property
    def significant_figures(self) -> int:
        """Figures the spread of the middle half of the times supports (1 to 4)."""
        n = len(self._sorted)
        mid = self._sorted[n // 4:int(math.ceil(3 * n / 4))] or self._sorted
        ci = max(1.645 * float(np.std(mid)) / math.sqrt(len(mid)), 25e-9)
        figures = int(math.floor(math.log10(self.median / ci))) if self.median > 0 else 1
        return min(max(figures, 1), 4)

    @property
    def has_warnings(self) -> bool:
        return len(self._sorted) >= 4 and self.median > 0 and self.iqr / self.median > IQR_WARNING

    def meets_confidence(self, threshold=IQR_WARNING) -> bool:
        return self.median > 0 and self.iqr / self.median < threshold

    def to_array(self):
        return np.array(self.times)

    def _describe(self) -> str:
        unit, scale = select_unit(self.median)
        n = len(self._sorted)
        lines = [self.task_spec.summarize()]
        threads = f"{self.task_spec.num_threads} thread{'s' if self.task_spec.num_threads != 1 else ''}"
        if n == 1:
            lines.append(f"  {self.median / scale:.2f} {unit}")
            lines.append(f"  1 measurement, {self.number_per_run} runs , {threads}")
        else:
            q25, q75 = np.percentile(self._sorted, 25), np.percentile(self._sorted, 75)
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({q25 / scale:.2f} to {q75 / scale:.2f})")
            lines.append(f"  {n} measurements, {self.number_per_run} runs per measurement, {threads}")
        if self.has_warnings:
            lines.append(f"  WARNING: Interquartile range is {100 * self.iqr / self.median:.1f}% of the median "
                         "measurement.\n           This suggests significant environmental influence.")
        return "\n".join(lines)

    def __repr__(self):
        return f"<torch.utils.benchmark.utils.common.Measurement object at {id(self):#x}>\n{self._describe()}"

    __str__ = __repr__

    @staticmethod
    def merge(measurements):
        """One Measurement per task spec, their times pooled (per run)."""
        groups = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).append(m)
        return [Measurement(1, [t for m in ms for t in m.times], spec) for spec, ms in groups.items()]
