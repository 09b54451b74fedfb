"""msnb implementation of ``torch.autograd.profiler``: host-side timing of msnb's
kernel calls and of ``record_function`` ranges.

While a profile records, every MindSpore kernel msnb calls (the one dispatch
table, ``msnb/adapter/_dispatch.py``) is wrapped to note its name, start and
end (``time.perf_counter_ns``), and on request its input shapes and the bytes
of its outputs; when no profile records the kernels are called unwrapped.
Kernel events are named ``msnb::<kernel>`` (msnb's kernels, not PyTorch's
``aten::`` ops).  Times are host times of the call: a kernel MindSpore runs
asynchronously counts its launch, not its device time."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
import time

__all__ = ["profile", "record_function", "EventList", "FunctionEvent"]

#: the profiles now recording (kernels are wrapped while this is non-empty)
_ACTIVE: list = []
_LOCK = threading.Lock()


def active():
    """The recording profiles, innermost last."""
    return list(_ACTIVE)


def format_time(us):
    """PyTorch's time format: ``1.234ms``."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes):
    """PyTorch's memory format: ``9.77 KB``."""
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} KB"
    return f"{int(nbytes)} B"


class FunctionEvent:
    """One recorded kernel call or ``record_function`` range (times in microseconds)."""

    def __init__(self, id, name, start_ns, end_ns, thread, input_shapes=None, memory=0, user=False):
        self.id = id
        self.name = self.key = name
        self._start_ns, self._end_ns = start_ns, end_ns
        self.thread = thread
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_memory_usage = memory
        self.is_user_annotation = user
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.device_type = "CPU"
        self.device_time_total = self.self_device_time_total = self.cuda_time_total = 0.0
        self.device_memory_usage = self.self_device_memory_usage = 0

    @property
    def time_range(self):
        return self._start_ns / 1e3, self._end_ns / 1e3

    @property
    def cpu_time_total(self):
        return (self._end_ns - self._start_ns) / 1e3

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={format_time(self.cpu_time_total)} "
                f"self_cpu_time={format_time(self.self_cpu_time_total)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg:
    """The events of one name (and, on request, one input-shape list), summed."""

    def __init__(self, key, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.device_time_total = self.self_device_time_total = self.cuda_time_total = 0.0
        self.device_memory_usage = self.self_device_memory_usage = 0
        self.is_user_annotation = False
        self.device_type = "CPU"

    def add(self, ev):
        self.count += ev.count
        self.cpu_time_total += ev.cpu_time_total
        self.self_cpu_time_total += ev.self_cpu_time_total
        self.cpu_memory_usage += ev.cpu_memory_usage
        self.self_cpu_memory_usage += ev.self_cpu_memory_usage
        self.is_user_annotation = ev.is_user_annotation
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={format_time(self.self_cpu_time_total)} "
                f"cpu_time={format_time(self.cpu_time)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events with PyTorch's ``table``, ``key_averages``, ``total_average``
    and ``export_chrome_trace``."""

    def __init__(self, events=(), profile_memory=False, with_shapes=False):
        super().__init__(events)
        self._profile_memory = profile_memory
        self._with_shapes = with_shapes

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        groups = {}
        for e in self:
            shapes = str(e.input_shapes) if group_by_input_shape else None
            key = (e.key, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape else None)
            groups[key].add(e)
        return EventList(groups.values(), self._profile_memory, group_by_input_shape)

    def total_average(self):
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        rows = list(self)
        if top_level_events_only:
            rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total_self = sum(e.self_cpu_time_total for e in self) or 1e-30
        name_w = min(max((len(e.key) for e in rows), default=4) + 4, max_name_column_width)
        name_w = max(name_w, len("Name") + 4)
        cols = [("Self CPU %", lambda e: f"{100 * e.self_cpu_time_total / total_self:.2f}%"),
                ("Self CPU", lambda e: format_time(e.self_cpu_time_total)),
                ("CPU total %", lambda e: f"{100 * e.cpu_time_total / total_self:.2f}%"),
                ("CPU total", lambda e: format_time(e.cpu_time_total)),
                ("CPU time avg", lambda e: format_time(e.cpu_time_total / max(e.count, 1)))]
        if self._profile_memory:
            cols += [("CPU Mem", lambda e: format_memory(e.cpu_memory_usage)),
                     ("Self CPU Mem", lambda e: format_memory(e.self_cpu_memory_usage))]
        cols.append(("# of Calls", lambda e: str(e.count)))
        shapes_w = 0
        if self._with_shapes:
            shapes_w = min(max([len(str(e.input_shapes)) for e in rows] + [len("Input Shapes")]) + 4,
                           max_shapes_column_width)
        widths = [name_w] + [12] * len(cols) + ([shapes_w] if shapes_w else [])
        line = "  ".join("-" * w for w in widths) + "  "

        def fmt(cells):
            return "  ".join(c[:w].rjust(w) for c, w in zip(cells, widths)) + "  "

        def short(name):
            return name if len(name) <= name_w else name[:name_w - 3] + "..."

        out = []
        if header is not None:
            out += ["=" * len(line), header]
        out += [line, fmt(["Name"] + [c for c, _ in cols] + (["Input Shapes"] if shapes_w else [])), line]
        for e in rows:
            cells = [short(e.key)] + [f(e) for _, f in cols]
            if shapes_w:
                cells.append(str(e.input_shapes))
            out.append(fmt(cells))
        out += [line, f"Self CPU time total: {format_time(sum(e.self_cpu_time_total for e in self))}", ""]
        return "\n".join(out)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events in the Chrome trace-event format (JSON, ``chrome://tracing``)."""
        pid = os.getpid()
        events = []
        for e in self:
            if not isinstance(e, FunctionEvent):
                continue
            args = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            events.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                           "name": e.name, "pid": pid, "tid": e.thread, "ts": e._start_ns / 1e3,
                           "dur": (e._end_ns - e._start_ns) / 1e3, "args": args})
        doc = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
               "traceName": str(path), "traceEvents": events}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)


def _shapes(args):
    out = []
    for a in args:
        shape = getattr(a, "shape", None)
        out.append(list(shape) if shape is not None and not isinstance(a, (int, float)) else [])
    return out


def _nbytes(out):
    if isinstance(out, (tuple, list)):
        return sum(_nbytes(o) for o in out)
    n = getattr(out, "nbytes", None)
    return int(n) if isinstance(n, int) else 0


def _timed(name, kernel):
    label = f"msnb::{name}"

    def call(*args, **kwargs):
        t0 = time.perf_counter_ns()
        out = kernel(*args, **kwargs)
        t1 = time.perf_counter_ns()
        for prof in _ACTIVE:
            rec = prof._rec
            if rec is not None:
                rec._kernel(label, t0, t1, args, out)
        return out

    return call


def _start(rec):
    from ... import _dispatch
    with _LOCK:
        _ACTIVE.append(rec)
        if len(_ACTIVE) == 1:
            _dispatch.set_kernel_hook(_timed)


def _stop(rec):
    from ... import _dispatch
    with _LOCK:
        if rec in _ACTIVE:
            _ACTIVE.remove(rec)
        if not _ACTIVE:
            _dispatch.set_kernel_hook(None)


class _Recording:
    """The events of one recording: kernel calls nest inside the open ranges."""

    def __init__(self, record_shapes, profile_memory):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.events = []
        self.open = {}  # thread -> stack of open range events
        self.next_id = 0

    def _new(self, name, t0, t1, shapes, mem, user):
        thread = threading.get_native_id()
        ev = FunctionEvent(self.next_id, name, t0, t1, thread, shapes, mem, user)
        self.next_id += 1
        stack = self.open.get(thread)
        if stack:
            ev.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(ev)
        self.events.append(ev)
        return ev

    def _kernel(self, label, t0, t1, args, out):
        self._new(label, t0, t1, _shapes(args) if self.record_shapes else None,
                  _nbytes(out) if self.profile_memory else 0, False)

    def begin(self, name, shapes):
        t = time.perf_counter_ns()
        ev = self._new(name, t, t, shapes if self.record_shapes else None, 0, True)
        self.open.setdefault(ev.thread, []).append(ev)
        return ev

    def end(self, ev):
        ev._end_ns = time.perf_counter_ns()
        stack = self.open.get(ev.thread, [])
        if ev in stack:
            stack.remove(ev)
        ev.cpu_memory_usage = sum(c.cpu_memory_usage for c in ev.cpu_children)


class record_function(contextlib.ContextDecorator):  # noqa: N801 - PyTorch's spelling
    """Labels a block of code in the profiles that record it (a context manager or a decorator)."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._open = []

    def __enter__(self):
        self._open = [(rec, rec._rec.begin(self.name, [])) for rec in _ACTIVE if rec._rec is not None]
        return self

    def __exit__(self, *exc):
        for rec, ev in self._open:
            if rec._rec is not None:
                rec._rec.end(ev)
        self._open = []
        return False


class profile:  # noqa: N801 - PyTorch's spelling
    """msnb implementation of ``torch.autograd.profiler.profile`` (host-side timing, see the module)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        if use_cuda or use_device not in (None, "cpu"):
            import warnings
            warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
        self._rec = None
        self.function_events = None
        self.entered = False

    def _begin(self):
        self._rec = _Recording(self.record_shapes, self.profile_memory)
        _start(self)

    def _end(self):
        _stop(self)
        rec, self._rec = self._rec, None
        if rec is not None:
            for stack in rec.open.values():
                for ev in list(stack):
                    rec.end(ev)
            self.function_events = EventList(rec.events, self.profile_memory, self.record_shapes)

    def __enter__(self):
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        if self.enabled:
            self._begin()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self._end()
        self.entered = False
        return False

    def _check(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def events(self):
        self._check()
        return self.function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        self._check()
        return self.function_events.table(sort_by, row_limit, max_src_column_width, max_name_column_width,
                                          max_shapes_column_width, header, top_level_events_only)

    def total_average(self):
        self._check()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check()
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        self._check()
        self.function_events.export_chrome_trace(path)

    def __str__(self):
        self._check()
        return str(self.function_events)


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.autograd.profiler")
