"""msnb implementation of ``torch.profiler``: ``profile`` with PyTorch's
schedule / ``on_trace_ready`` / ``step()`` cycle over msnb's host-side
kernel timing (:mod:`msnb.adapter.torch.autograd.profiler`)."""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings

from ..._ms import device_target
from ..autograd.profiler import EventList, record_function
from ..autograd.profiler import profile as _legacy_profile

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """PyTorch's activity kinds; msnb records CPU (host) activity."""

    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"

    def __str__(self):
        return f"ProfilerActivity.{self.name}"


class ProfilerAction(enum.Enum):
    """What a schedule asks for at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3

    def __repr__(self):
        return f"<ProfilerAction.{self.name}: {self.value}>"


def supported_activities():
    """The activities msnb can record: CPU."""
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """PyTorch's step schedule: skip ``skip_first`` steps, then cycles of ``wait``
    idle, ``warmup`` and ``active`` recorded steps, ``repeat`` times (0: forever)."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def schedule_fn(step):
        if step < 0:
            raise AssertionError
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod = step % num_steps
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each trace as ``<worker>.<ns>.pt.trace.json[.gz]`` into ``dir_name``."""
    def handler_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json")
        if use_gzip:
            import gzip
            import shutil
            prof.export_chrome_trace(path)
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
        else:
            prof.export_chrome_trace(path)

    return handler_fn


class profile:  # noqa: N801 - PyTorch's spelling
    """msnb implementation of ``torch.profiler.profile``."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        acts = set(activities) if activities else supported_activities()
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        for a in acts:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"activities must be ProfilerActivity values, got {a!r}")
        if ProfilerActivity.CUDA in acts:
            warnings.warn("CUDA is not available, disabling CUDA profiling" if device_target() != "Ascend" else
                          "msnb times the host side of kernel calls only: device (CUDA/Ascend) activity is not "
                          "profiled", stacklevel=2)
        self.activities = acts
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.step_num = 0
        self.current_action = None
        self.acc_events = acc_events
        self._prof = None
        self._last = None
        self._cycles = 0
        self._kept = []  # events of earlier cycles (acc_events=True)

    # --- the recording cycle -----------------------------------------------------------
    def _open(self):
        if self._prof is None and ProfilerActivity.CPU in self.activities:
            self._cycles += 1
            if self._cycles == 2 and not self.acc_events:
                warnings.warn("Warning: Profiler clears events at the end of each cycle. Only events from the "
                              "current cycle will be reported. To keep events across cycles, set acc_events=True.",
                              stacklevel=4)
            if self.acc_events and self._last is not None:
                self._kept.extend(self._last.function_events)
            self._prof = _legacy_profile(record_shapes=self.record_shapes, profile_memory=self.profile_memory)
            self._prof.__enter__()

    def _close(self, save):
        if self._prof is not None:
            self._prof.__exit__(None, None, None)
            self._last, self._prof = self._prof, None
            if save and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _transit(self, prev, cur):
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev in recording and (prev == ProfilerAction.RECORD_AND_SAVE or cur not in recording):
            if prev == ProfilerAction.RECORD and cur is not None:
                warnings.warn("Incorrect schedule: RECORD followed by NONE or WARMUP", stacklevel=3)
            self._close(save=True)
        elif prev == ProfilerAction.WARMUP and cur is None:
            self._open()
            self._close(save=False)
        if cur in recording:
            self._open()

    def start(self):
        self.current_action = self.schedule(self.step_num)
        self._transit(None, self.current_action)

    def stop(self):
        self._transit(self.current_action, None)
        self.current_action = None

    def step(self):
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # --- results ------------------------------------------------------------------------
    def _results(self):
        if self._last is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self._last

    def events(self) -> EventList:
        last = self._results().events()
        if not self._kept:
            return last
        return EventList(self._kept + list(last), self.profile_memory, self.record_shapes)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        return self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        from .._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message("torch.profiler.profile.export_stacks"))

    def export_memory_timeline(self, path, device=None):
        from .._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message("torch.profiler.profile.export_memory_timeline"))


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.profiler")
