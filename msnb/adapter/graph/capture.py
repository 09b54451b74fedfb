"""Recording one region with MindSpore's trace recorder.

While a :class:`Recording` is open the adapter runs eagerly as usual (so the
first recorded call computes real results) and MindSpore records every
kernel.  Three things would make a replay differ from PyNative, and each is
caught here rather than compiled wrong:

* a tensor value read on the host (``Tensor.numpy`` is the one door: ``item``,
  ``tolist``, ``bool``, printing, host-side ops) -- the replay would reuse the
  value of the recorded call; :func:`host_read` marks the recording broken;
* random numbers drawn on the host -- the replay would reuse them: draws
  from the samplers (``rand``, ``randn``, dropout masks, ...) become graph
  inputs refilled before every replay (:meth:`Recording.feed`); any other
  draw marks the recording broken (:func:`host_random`);
* an in-place write (``_ms.set_data``) -- MindSpore does not see it, so the
  write is re-routed: a Parameter (which MindSpore binds into the graph
  itself) gets a recorded ``assign``; any other tensor is re-pointed and the
  recorder told it now holds the new value, and writes to the region's
  inputs become extra graph outputs written back after each replay.
"""

from __future__ import annotations

import itertools
import linecache
import os
import sys
import types
from dataclasses import dataclass

from .. import _ms

__all__ = ["Recording", "Break", "current", "recording", "host_read", "host_random", "host_data", "feed", "residuals", "user_frame",
           "refill"]

_CURRENT: list = [None]
_feed_ids = itertools.count()
_ADAPTER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_MSNB_DIR = os.path.dirname(_ADAPTER_DIR)
_MS_DIR = os.path.dirname(os.path.abspath(_ms.ms.__file__))


@dataclass(frozen=True)
class Break:
    """Why a recording cannot be used: ``what`` happened in ``api``, at ``where``."""

    what: str
    api: str
    file: str
    line: int
    text: str

    @property
    def where(self) -> str:
        return _place(self.file, self.line)


def current():
    """The open recording, or None."""
    return _CURRENT[0]


def _place(file: str, line: int) -> str:
    if file.startswith("<ipython-input-") or "/ipykernel_" in file or file.startswith("<msnb"):
        return f"cell line {line}"
    return f"{os.path.basename(file)}:{line}" if file else "?"


# adapter frames that are plumbing, not the API the user called
_PLUMBING = frozenset({"__call__", "_call_eager", "forward", "op", "call_module", "_g", "numpy", "wrapper"})


def user_frame(depth: int = 2):
    """(file, line, source text, adapter API name) of the user code that called into msnb."""
    f = sys._getframe(depth)
    api = ""
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if fn.startswith(_MSNB_DIR) or fn.startswith(_MS_DIR) or fn.startswith("<frozen"):
            name = f.f_code.co_name
            if (fn.startswith(_ADAPTER_DIR) and not fn.startswith(os.path.join(_ADAPTER_DIR, "graph"))
                    and name not in _PLUMBING):
                api = name
            f = f.f_back
            continue
        file, line = f.f_code.co_filename, f.f_lineno
        return file, line, linecache.getline(file, line).strip(), api
    return "", 0, "", api


def _mark(what: str) -> None:
    rec = _CURRENT[0]
    if rec is not None and rec.broken is None:
        if os.environ.get("MSNB_DEBUG_BREAKS"):
            import traceback
            traceback.print_stack()
        file, line, text, api = user_frame(3)
        rec.broken = Break(what, _api_name(api), file, line, text)


def _api_name(name: str) -> str:
    return {"__bool__": "bool(tensor)", "__format__": "a format string on a tensor", "__repr__": "printing a tensor",
            "__float__": "float(tensor)", "__int__": "int(tensor)", "__index__": "a tensor as an index",
            "__array__": "numpy conversion"}.get(name, f"{name}()" if name else "a host read")


def recording() -> bool:
    """True while a graph-mode step is being recorded: value checks that would read a
    tensor on the host (index bounds, integer division by zero) are left out of it."""
    return _CURRENT[0] is not None


def host_read() -> None:
    """Called by ``Tensor.numpy``: a tensor value goes to Python."""
    if _CURRENT[0] is not None:
        _mark("reads a tensor value on the host")


def host_random() -> None:
    """Called where random numbers are drawn on the host."""
    rec = _CURRENT[0]
    if rec is not None and not rec._feeding:
        _mark("draws random numbers on the host")


def host_data() -> None:
    """Called where a tensor is made from host data (``torch.tensor(array)``, ``from_numpy``):
    inside a recorded training step (graph/step.py) its value would be a constant of the
    graph, though a batch changes at every step."""
    rec = _CURRENT[0]
    if rec is not None and rec.params_out:
        _mark("makes a tensor from host data inside the step")


def feed(fn, args, kwargs):
    """A host-random adapter function called while recording (see :meth:`Recording.feed`)."""
    return _CURRENT[0].feed(fn, args, kwargs)


def _has_tensor(obj) -> bool:
    if isinstance(obj, _ms.TensorPy):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_has_tensor(o) for o in obj)
    if isinstance(obj, dict):
        return any(_has_tensor(o) for o in obj.values())
    return False


class Recording:
    """Context manager: record a graph named ``phase`` over ``inputs``.

    ``close(outputs)`` compiles it; leaving the block without closing, or
    with :attr:`broken` set, abandons it.  In-place writes to ``inputs``
    are collected in :attr:`written` (input positions, in first-write order);
    the graph's outputs are ``outputs``, then those inputs' new values, then
    the results of Parameter assigns (ignored by callers)."""

    def __init__(self, phase: str, inputs, where=("", 0)):
        self.phase = phase
        self.inputs = tuple(inputs)
        self._pos = {id(t): i for i, t in enumerate(self.inputs)}
        self.written: list[int] = []
        self._assigned: list = []
        #: (fn, args, kwargs, slot): host random draws fed to the graph through Parameters
        self.feeds: list = []
        self._feeding = False
        self.allow_feeds = True
        #: when set, writes to Parameters are not recorded as in-graph assigns: the
        #: eager run writes them (unrecorded) and their new values become graph
        #: outputs (:attr:`param_writes`) that the caller commits (graph/step.py)
        self.params_out = False
        self.param_writes: dict = {}
        #: ``on_input_write(position)``: called at each write to an input (or a written Parameter)
        self.on_input_write = None
        self.broken: Break | None = None
        self.where = where
        self._closed = False

    def __enter__(self) -> "Recording":
        if _CURRENT[0] is not None or _ms.trace_open():
            raise RuntimeError("msnb graph mode: recordings cannot nest")
        _ms.trace_begin(self.phase, self.inputs, self.where)
        _CURRENT[0] = self
        _ms.write_hook = self._write
        return self

    def _write(self, dst, src) -> None:
        if self.params_out and isinstance(dst, _ms.ms.Parameter) and dst.shape == src.shape \
                and dst.dtype == src.dtype:
            if id(dst) in self.param_writes:
                # the recorder keeps reading a Parameter's own memory: what was computed from it
                # after the first (unrecorded) write would use the old value at a replay
                _mark("writes a parameter twice")
            with _ms.untraced():
                _ms.ms.ops.assign(dst, src)
            _ms.trace_pass(src, dst)
            self.param_writes[id(dst)] = (dst, src)
            if self.on_input_write is not None:
                self.on_input_write(self._pos.get(id(dst)))
            return
        if isinstance(dst, _ms.ms.Parameter) and dst.shape == src.shape and dst.dtype == src.dtype:
            # MindSpore binds a recorded Parameter itself (not a graph input):
            # a recorded assign updates it in place at every replay, kept alive
            # by making its result a graph output
            self._assigned.append(_ms.ms.ops.assign(dst, src))
            return
        _ms._update(dst, src)
        _ms.trace_pass(src, dst)
        i = self._pos.get(id(dst))
        if i is not None and self.on_input_write is not None:
            self.on_input_write(i)
        if i is not None and i not in self.written:
            self.written.append(i)

    def feed(self, fn, args, kwargs):
        """Random numbers drawn on the host, made a graph input.

        ``fn(*args, **kwargs)`` (an adapter sampler such as ``rand`` or a
        dropout mask, with no tensor arguments) draws as in PyNative; its
        value goes into a fresh ``Parameter`` -- MindSpore binds a Parameter
        into the graph and reads its memory at every replay -- and the region
        gets a recorded copy of it.  Before each replay the same call draws
        again (from the same generator, in the same order as PyNative would)
        into that Parameter.  Draws that depend on tensor values break the
        recording instead."""
        if self.broken is not None or not self.allow_feeds or _has_tensor((args, kwargs)) \
                or kwargs.get("requires_grad"):
            return fn(*args, **kwargs)  # the host_random hook marks the break
        from ..torch._core import K, wrap
        self._feeding = True
        try:
            with _ms.untraced():
                value = fn(*args, **kwargs)  # host data already: a plain MindSpore copy seeds the Parameter
                slot = _ms.ms.Parameter(_ms.ms.Tensor(_ms.TensorPy.asnumpy(value)),
                                        name=f"msnb_feed_{next(_feed_ids)}", requires_grad=False)
        finally:
            self._feeding = False
        self.feeds.append((fn, args, kwargs, slot))
        return wrap(K.identity(slot))

    def close(self, outputs) -> bool:
        """Compile with ``outputs`` (+ the written inputs appended); False if broken."""
        self._detach()
        if self.broken is not None:
            _ms.trace_abandon(self.inputs[0] if self.inputs else None)
            return False
        try:
            _ms.trace_end(tuple(outputs) + tuple(self.inputs[i] for i in self.written) + tuple(self._assigned)
                          + tuple(src for _, src in self.param_writes.values()))
        except BaseException:
            _ms.trace_reset(self.inputs[0] if self.inputs else None)
            raise
        self._closed = True
        from .region import compiled
        compiled()
        return True

    def _detach(self) -> None:
        _CURRENT[0] = None
        _ms.write_hook = None

    def __exit__(self, *exc) -> None:
        if _CURRENT[0] is self:
            self._detach()
            _ms.trace_abandon(self.inputs[0] if self.inputs else None)


def refill(feeds) -> None:
    """Before a replay: draw every fed random input anew into its Parameter."""
    for fn, args, kwargs, slot in feeds:
        _ms.set_data(slot, fn(*args, **kwargs))


# --- residuals: what a backward graph needs from its forward --------------------------

def _tensors_in(obj, out: dict, seen: set, depth: int = 0) -> None:
    if depth > 8 or id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, _ms.TensorPy):
        out[id(obj)] = obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _tensors_in(o, out, seen, depth + 1)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors_in(o, out, seen, depth + 1)
    elif isinstance(obj, types.FunctionType):
        for cell in obj.__closure__ or ():
            try:
                _tensors_in(cell.cell_contents, out, seen, depth + 1)
            except ValueError:  # empty cell
                pass
        _tensors_in(obj.__defaults__ or (), out, seen, depth + 1)
        _tensors_in(obj.__kwdefaults__ or {}, out, seen, depth + 1)
    elif isinstance(obj, types.MethodType):
        _tensors_in(obj.__func__, out, seen, depth + 1)
        _tensors_in(obj.__self__, out, seen, depth + 1)
    elif hasattr(obj, "func") and hasattr(obj, "args") and callable(obj):  # functools.partial
        _tensors_in(obj.func, out, seen, depth + 1)
        _tensors_in(obj.args, out, seen, depth + 1)
        _tensors_in(obj.keywords, out, seen, depth + 1)
    elif hasattr(obj, "saved_tensors") and hasattr(obj, "needs_input_grad"):  # autograd.Function ctx
        _tensors_in(vars(obj), out, seen, depth + 1)


def residuals(outputs, inputs) -> list:
    """Tensors the autograd graph between ``outputs`` and ``inputs`` keeps for
    backward (saved tensors and everything its backward closures hold),
    except ``inputs`` themselves: the forward graph must output them so the
    backward graph can take them as inputs instead of baking in constants."""
    from ..torch.autograd.graph import AccumulateGrad, edge_of
    found: dict = {}
    seen_nodes: set = set()
    for t in inputs:  # the walk stops at the region's edge
        e = edge_of(t)
        if e is not None:
            seen_nodes.add(id(e[0]))
    stack = [o._grad_fn for o in outputs if o._grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes or isinstance(node, AccumulateGrad):
            continue
        seen_nodes.add(id(node))
        seen: set = set()
        _tensors_in(node._backward, found, seen)
        _tensors_in(node._saved, found, seen)
        stack.extend(e[0] for e in node.next_functions if e is not None)
    skip = {id(t) for t in inputs}
    return [t for k, t in found.items() if k not in skip]
