"""The whole training step as one compiled graph.

A *step* is what runs from a top-level module call (``model(x)``) to
``optimizer.step()``: more module calls (the loss), ``loss.backward()``,
``clip_grad_norm_`` and the user's own tensor code in between.  Each step is
watched as a sequence of *events* (module calls with their guard keys,
``backward``, ``clip_grad_norm_``, ``optimizer.step``).  Once a sequence has
been seen, the next step that starts the same way is recorded as a whole with
MindSpore's trace recorder (one graph: forward, loss, backward, clipping,
update) and every later step starting the same way replays it:

* the graph runs at the first module call, on that call's tensors, the
  calling frame's tensor variables (the batch's targets), the parameters,
  buffers, gradients and optimizer state;
* every later event of the step is checked against the recorded one and
  answered from the graph's results (the loss, ``p.grad``, the total norm);
* parameters, buffers and optimizer state are written only at
  ``optimizer.step()``: a step that does something else than the recorded
  one (no ``step()``, ``backward`` of another tensor, other numbers) runs on
  region by region from where it differs, with nothing committed, so results
  stay those of PyNative.

The recording falls back (the step then runs region by region, as before)
when a value is read on the host inside the step, random numbers are drawn,
the step holds more than one ``backward``, or gradients are accumulated
(``.grad`` not None at ``backward``).  ``MSNB_GRAPH_STEP=0`` turns it off.

Never slower than PyNative: a compiled step is not always faster (on a small
CPU host MindSpore's graph executor can spend more than the same kernels run
one by one, and it runs on threads of its own, which lose most on a host
whose cores are busy).  Once a step is known, one step runs plainly in
PyNative (untimed: PyNative's first-call costs; once per step start) before it
is recorded; after the recording and one untimed warm-up replay, the two forms
run interleaved (PyNative, graph, graph, PyNative, ...), each a real step of the
loop, timed from its first module call to the start of the next step (so
``loss.item()`` after ``step()`` counts).  After :data:`DECIDE_AFTER` pairs a
clear verdict (every pair and the fastest steps beyond :data:`CLEAR` one way)
is kept at once; otherwise, once each form has :data:`MEASURE` timed steps,
the graph is kept for that step signature only when it is faster both by the
median of the adjacent pairs' ratios and by the fastest step of each (a tie
stays PyNative), and one line says so.  Timing the two forms side by side
in the same process state matters: a block of PyNative steps timed before
the compile and a block of replays after it measured the host's load as it
changed between the blocks (ResNet-18 kept a graph that ran at half
PyNative's speed).  ``MSNB_GRAPH_CHOICE=graph`` or ``=pynative``
forces a form (``auto``, the default, measures).  Both forms compute the same
values, write the same parameters and optimizer state and draw no random
numbers (a step that draws them is never compiled), so training continues
identically whichever runs.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import weakref

from .. import _ms
from . import capture, tree
from . import module as _gmod
from . import update as _gupd
from .capture import Recording
from .region import compiling, note, replayed

__all__ = ["module_call", "backward", "clip", "optimizer_step", "active", "enabled", "stats", "reset", "abandon",
           "choice_setting", "choices", "running_form", "CLOCK", "MEASURE"]

_DEPTH = [0]
#: index of the step event running now while a step is recorded (None between events)
_NOW: list = [None]
_CHAIN: list = [None]
#: events per step at most (a longer run of module calls without a step is not a training step)
_MAX_EVENTS = 16
#: recordings of one step start that failed before it gives up (stays region by region)
_MAX_TRIES = 3
_by_start: dict = {}
_seen: dict = {}
_compiled: dict = {}
_tries: dict = {}
_div: dict = {}  # step start -> replayed steps in a row that diverged
_objs: dict = {}
_counts = {"recorded": 0, "replayed": 0, "diverged": 0, "pynative": 0}
_LABEL = "training step"
#: timed steps per form before the faster one is kept (after one untimed warm-up replay)
MEASURE = 4
#: untimed plain PyNative steps before a step is recorded (``auto``), per step start: a step whose
#: optimizer had no state yet (SGD's momentum, Adam's moments are made at the first ``step()``) has
#: another signature than the next one, and warming PyNative up once more for it cost a step
WARM_PYNATIVE = 1
#: adjacent pairs after which a clear verdict ends the measurement early (each form then has this
#: many timed steps, in both orders), and what "clear" means: every pair's PyNative/graph ratio and
#: the fastest steps' ratio beyond this factor one way.  Less clear results run on to MEASURE.
DECIDE_AFTER = 2
CLEAR = 1.25
#: ``[clock]``: what the step timings read (tests put a fake clock here)
CLOCK = [time.perf_counter]
_choice: dict = {}  # step signature -> "graph" | "pynative" (kept for good)
_timings: dict = {}  # step signature -> {"graph": [seconds...], "pynative": [...], "warm": bool}
_pre: dict = {}  # step start -> untimed PyNative warm-up steps run for it
_RUNNING: list = [None]  # the form of the step being timed now ("graph" | "pynative"), for a fake clock
_PENDING: list = [None]  # (signature, form, start) of a timed step that ended, until the next step starts


def active() -> bool:
    """Whether a step is open (a ``backward`` may be one of its events)."""
    return _CHAIN[0] is not None


def enabled() -> bool:
    return os.environ.get("MSNB_GRAPH_STEP", "1") != "0"


def stats() -> dict:
    """Whole-step graphs recorded, steps replayed as one graph, replayed steps that diverged,
    recorded steps run in PyNative instead (measured or chosen)."""
    return dict(_counts)


def choice_setting() -> str:
    """``MSNB_GRAPH_CHOICE``: ``auto`` (measure both forms, keep the faster), ``graph`` or ``pynative``."""
    v = os.environ.get("MSNB_GRAPH_CHOICE", "auto").strip().lower()
    return v if v in ("graph", "pynative") else "auto"


def choices() -> list[str]:
    """The form kept for each recorded step measured so far ("graph" or "pynative")."""
    return list(_choice.values())


def running_form():
    """The form of the step being timed now (``"graph"``, ``"pynative"``) or None."""
    return _RUNNING[0]


def reset() -> None:
    """Forget every recorded step (tests)."""
    abandon()
    for d in (_by_start, _seen, _compiled, _tries, _div, _objs, _choice, _timings, _pre):
        d.clear()
    _RUNNING[0] = _PENDING[0] = None
    _counts.update(recorded=0, replayed=0, diverged=0, pynative=0)


def _tensor_cls():
    from ..torch._tensor import Tensor
    return Tensor


def _caller():
    f = sys._getframe(2)
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if fn.startswith(capture._MSNB_DIR) or fn.startswith(capture._MS_DIR) or fn.startswith("<frozen"):
            f = f.f_back
            continue
        return f
    return None


def _line(frame) -> int:
    return frame.f_lineno if frame is not None else 0


def _keep(obj) -> int:
    try:
        _objs[id(obj)] = weakref.ref(obj)
    except TypeError:
        _objs[id(obj)] = lambda o=obj: o
    return id(obj)


def _obj(i):
    r = _objs.get(i)
    return r() if r is not None else None


class _Chain:
    def __init__(self, first, predicted):
        self.first = first
        self.events = [first]
        self.predicted = predicted
        self.mode = "observe"
        self.rec = None
        self.entry = None
        self.flats = []  # per module event: its flat outputs (record: eager; replay: graph)
        self.tensors = ()
        self.outs = ()
        self.frame = None
        self.specs = []
        self.event_writes = {}  # input position -> index of the event that last wrote it
        self.done = 0  # replay: events whose writes are due
        self.arg_pos = []  # record: per module event, the input slot of each tensor argument (or None)
        self.t0 = None  # clock at the step's start when this step is timed
        self.form = None  # the form timed ("graph" | "pynative")

    def locate(self, t):
        for k, flat in enumerate(self.flats):
            for j, o in enumerate(flat):
                if o is t:
                    return k, j
        return None


class _Entry:
    """One recorded step."""

    def __init__(self, phase, gsig):
        self.phase, self.gsig = phase, gsig
        self.counts = []  # flat outputs per module event
        self.specs = []
        self.metas = []
        self.diffs = []  # per module event: positions of outputs that require grad
        self.clip = False
        self.targets = ()  # input positions receiving gradients
        self.clip_targets = ()  # target indices, in the clip call's order
        self.commit = ()  # (input position, output position): written back at step()
        self.arg_pos = ()  # per module event: input slot of each tensor argument (None: not an input)
        self.n = 0


# --- gathering a step's inputs ----------------------------------------------------------

def _frame_tensors(frame, Tensor):
    """The calling frame's tensor variables: bare names first, then the elements of
    short lists and tuples (a name like ``y`` is "this step's value"; ``ys[3]`` is not)."""
    names, elems = [], []
    if frame is None:
        return names
    for name, v in list(frame.f_locals.items()):
        if name.startswith("_"):
            continue
        if isinstance(v, Tensor):
            names.append(((name,), v))
        elif type(v) in (tuple, list) and len(v) <= 8:
            for i, e in enumerate(v):
                if isinstance(e, Tensor):
                    elems.append(((name, i), e))
    return names + elems


def _gather(leaves, frame, sig, record=False):
    """``(tensors, gsig)``: every tensor the step may read, and their roles and metas.

    Each role (argument, parameter, frame variable, ...) has its own input slot, so
    the signature does not depend on which frame variable happens to be the same
    object as the model's input this step (``x = xs[i]``).  MindSpore's recorder
    maps a tensor object to one input, the first slot holding it (arguments, then
    parameters and optimizer state, then bare names, then list elements); when
    ``record`` is set, later slots holding the same object get a stand-in of the
    same shape that the graph never reads.  A replay passes the real objects."""
    Tensor = _tensor_cls()
    items, keys, seen = [], set(), set()

    def add(role, ident, t):
        if (role, ident) in keys:
            return
        keys.add((role, ident))
        items.append((role, ident, t))

    for i, t in enumerate(leaves):
        add("a", i, t)
    for d in sig:
        o = _obj(d[1]) if d[0] in ("m", "s") else None
        if d[0] == "m" and o is not None:
            for p in o.parameters():
                add("p", id(p), p)
            for b in o.buffers():
                add("p", id(b), b)
        elif d[0] == "s" and o is not None:
            for g in o.param_groups:
                for p in g["params"]:
                    add("p", id(p), p)
                    if p.grad is not None:
                        add("g", id(p), p.grad)
                    st = o.state.get(p, {})
                    for k in sorted(st, key=str):
                        if isinstance(st[k], Tensor):
                            add("s", (id(p), k), st[k])
    for path, t in _frame_tensors(frame, Tensor):
        add("l", path, t)
    gsig = tuple((r, ident, tuple(t.shape), t.dtype, t.requires_grad) for r, ident, t in items)
    tensors = []
    for _, _, t in items:
        if record and id(t) in seen:
            t = t.detach().clone()  # an alias: its own slot, read by nothing in the graph
        seen.add(id(t))
        tensors.append(t)
    return tuple(tensors), gsig


def _same_inputs(ch, k, leaves) -> bool:
    """At a replay: event ``k``'s tensor arguments that were step inputs when it was
    recorded are the objects in those input slots now (``criterion(out, ys[i])``
    with another ``i`` is not the recorded step)."""
    at = ch.entry.arg_pos
    if k >= len(at):
        return True
    return all(p is None or (j < len(leaves) and leaves[j] is ch.tensors[p]) for j, p in enumerate(at[k]))


def _eligible(sig) -> str | None:
    kinds = [d[0] for d in sig]
    if kinds.count("b") != 1:
        return "it holds no or more than one backward()"
    if kinds[-1] != "s" or kinds.count("s") != 1:
        return "it does not end in one optimizer.step()"
    ib = kinds.index("b")
    if "m" in kinds[ib:] or kinds.count("c") > 1 or ("c" in kinds and kinds.index("c") < ib):
        return "module calls or clipping are placed where they cannot be compiled together"
    b = sig[ib]
    if b[1] is None or b[2:] != (True, False, False, True):
        return "backward() runs on a tensor other than a module's result, or with arguments"
    return None


# --- events -----------------------------------------------------------------------------

def module_call(module, args, kwargs, eager):
    """``Module.__call__`` in graph mode."""
    cur = capture.current()
    ch = _CHAIN[0]
    if _DEPTH[0] or not enabled() or (cur is not None and (ch is None or cur is not ch.rec)):
        return _gmod.call(module, args, kwargs, eager) if cur is None else eager(args, kwargs)
    _DEPTH[0] += 1
    try:
        return _module_event(module, args, kwargs, eager)
    finally:
        _DEPTH[0] -= 1


def _module_event(module, args, kwargs, eager):
    Tensor = _tensor_cls()
    frame = _caller()
    try:
        leaves, spec = tree.flatten((args, kwargs), Tensor)
        key = _gmod._guard(module, leaves, spec)
    except tree.Unsupported:
        key = None
    if isinstance(key, str):
        key = None
    desc = ("m", _keep(module), key, _line(frame)) if key is not None else None
    ch = _CHAIN[0]
    if ch is not None and (desc == ch.first or desc is None or len(ch.events) >= _MAX_EVENTS):
        abandon()  # a new step starts (or this is no training step)
        ch = None
    if ch is None:
        if desc is None:
            return _gmod.call(module, args, kwargs, eager)
        return _start(desc, module, args, kwargs, eager, leaves, spec, frame)
    k = len(ch.events)
    ch.events.append(desc)
    if ch.mode == "pynative":
        return _observed(ch, _plain(eager, args, kwargs), Tensor)
    if ch.mode == "record":
        if not _expect(ch, k, desc):
            return _observed(ch, _gmod.call(module, args, kwargs, eager), Tensor)
        return _record_module(ch, eager, args, kwargs, Tensor, leaves)
    if ch.mode == "replay" and _expect(ch, k, desc):
        if _same_inputs(ch, k, leaves):
            return _replay_module(ch, k, module, args, kwargs, eager, leaves, spec)
        _leave_replay(ch, k)
    return _observed(ch, _gmod.call(module, args, kwargs, eager), Tensor)


def _observed(ch, out, Tensor):
    """A module event run region by region: its results, so ``backward`` can be placed."""
    try:
        ch.flats.append(tree.flatten(out, Tensor)[0])
    except tree.Unsupported:
        ch.flats.append([])
    return out


def _expect(ch, k, desc) -> bool:
    """Whether event ``k`` is the recorded one; if not the step leaves its recording or replay."""
    sig = ch.predicted
    if k < len(sig) and sig[k] == desc and (ch.rec is None or ch.rec.broken is None):
        return True
    if ch.mode == "record":
        brk = ch.rec.broken
        _stop_recording(ch)
        if brk is not None:
            reason = f"{brk.api} {brk.what}" if brk.api else brk.what
            _fail(ch, reason, brk.where if brk.file else "", brk.text)
        else:
            _tries[ch.first] = _tries.get(ch.first, 0) + 1
            if _tries[ch.first] >= _MAX_TRIES:
                _fail(ch, "it changes from step to step (e.g. the learning rate or the calls it makes)", "", "")
    elif ch.mode == "replay":
        _leave_replay(ch, k)
    ch.mode = "diverged"
    return False


def _leave_replay(ch, k) -> None:
    """A replayed step whose event ``k`` is not the recorded one: it runs on region by region."""
    _commit(ch, k)  # the events before this one did happen (e.g. BatchNorm statistics)
    _diverged(ch)
    note("a training step did something else than the recorded one; it ran as separate graphs from there "
         "(nothing of the compiled step's update was committed)")
    ch.mode = "diverged"


def _commit(ch, upto) -> None:
    """Write back what the replayed step's events before ``upto`` wrote (parameters,
    buffers, optimizer state); each write at most once."""
    for i, j, ev in ch.entry.commit:
        if ch.done <= ev < upto:
            _gupd.write_back(ch.tensors[i], ch.outs[j])
    ch.done = max(ch.done, upto)


def _diverged(ch) -> None:
    """A replayed step that did something else; after :data:`_MAX_TRIES` in a row its
    graph is dropped (e.g. a learning rate changed at every step)."""
    _counts["diverged"] += 1
    n = _div[ch.first] = _div.get(ch.first, 0) + 1
    if n >= _MAX_TRIES:
        _compiled.pop(ch.predicted, None)
        _fail(ch, "its steps keep differing from the recorded one (e.g. the learning rate changes at every "
                  "step)", "", "")


def _fail(ch, reason, where, text) -> None:
    _tries[ch.first] = _MAX_TRIES
    at = f" at {where}" if where else ""
    src = f": {text}" if text else ""
    note(f"the training step runs as separate graphs, not one: {reason}{at}{src}  (%msnb explain lists all)")


def _stop_recording(ch) -> None:
    rec, ch.rec = ch.rec, None
    if rec is not None and capture.current() is rec:
        rec.__exit__(None, None, None)


def abandon() -> None:
    """Drop the open step (recording abandoned, replay results not committed)."""
    ch = _CHAIN[0]
    _CHAIN[0] = None
    _RUNNING[0] = _PENDING[0] = None  # (the cell ends: its tail is no step's time)
    if ch is not None and ch.rec is not None:
        _stop_recording(ch)
    if ch is not None and ch.mode == "replay":
        _commit(ch, len(ch.events))  # a step without optimizer.step(): its forward's writes happened
        _diverged(ch)


def _form(sig) -> tuple[str, bool]:
    """``(form, timed)``: how a recorded step with signature ``sig`` runs now.  Forced by
    ``MSNB_GRAPH_CHOICE``, else the form kept for it, else (measuring) the warm-up replay
    (untimed), then the two forms interleaved in the order of :func:`_turn` until each
    has :data:`MEASURE` timings."""
    forced = choice_setting()
    if forced != "auto":
        return forced, False
    kept = _choice.get(sig)
    if kept is not None:
        return kept, False
    t = _timings.setdefault(sig, {"graph": [], "pynative": [], "warm": False})
    if not t["warm"]:  # the first replay: untimed (it pays the graph's first run)
        t["warm"] = True
        return "graph", False
    return _turn(len(t["pynative"]), len(t["graph"])), True


def _turn(n_pynative: int, n_graph: int) -> str:
    """The form the next timed step runs in: PyNative, graph, graph, PyNative, PyNative, ...
    (each pair's two steps adjacent, the pairs in alternating order, so a load on the host
    that rises or falls while they run weighs on both forms alike)."""
    if n_pynative >= MEASURE:
        return "graph"
    if n_graph >= MEASURE:
        return "pynative"
    return "pynative" if (n_pynative + n_graph) % 4 in (0, 3) else "graph"


def _measure_first(ch, desc, predicted, eager, args, kwargs):
    """Before a step is recorded (``auto``): :data:`WARM_PYNATIVE` plain PyNative steps, untimed
    (PyNative's own first-call costs: kernel selection, the memory pool's growth); None once
    they ran.  The timed PyNative steps run after the recording, interleaved with the replays,
    in the process state a kept PyNative form would run in."""
    if choice_setting() != "auto" or predicted in _choice or _tries.get(desc, 0) >= _MAX_TRIES \
            or _eligible(predicted) is not None:
        return None
    if _pre.get(desc, 0) >= WARM_PYNATIVE:
        return None
    _pre[desc] = _pre.get(desc, 0) + 1
    ch.mode = ch.form = "pynative"
    _counts["pynative"] += 1
    return (_observed(ch, _plain(eager, args, kwargs), _tensor_cls()),)


def _plain(fn, *args):
    """``fn(*args)`` with graph mode off: PyNative kernels, no region graphs."""
    from . import STATE
    prev, STATE.enabled = STATE.enabled, False
    try:
        return fn(*args)
    finally:
        STATE.enabled = prev


def _timed_end(ch) -> None:
    """A timed step that ran as recorded: its time runs on to the start of the next step, so
    the host reads after ``optimizer.step()`` (``loss.item()``) and a graph still running
    then count for the form that caused them (:func:`_settle`)."""
    if ch.t0 is not None:
        _PENDING[0] = (ch.predicted, ch.form, ch.t0)


def _settle() -> None:
    """At the next step's start: the timed step's time counts for its form (after a sync);
    once both forms are measured, keep the faster."""
    pending, _PENDING[0] = _PENDING[0], None
    if pending is None:
        return
    sig, form, t0 = pending
    _ms.sync()
    dt = CLOCK[0]() - t0
    _RUNNING[0] = None
    t = _timings.get(sig)
    if t is None or sig in _choice:
        return
    t[form].append(dt)
    n_p, n_g = len(t["pynative"]), len(t["graph"])
    if n_g < MEASURE or n_p < MEASURE:
        if n_p != n_g or n_p < DECIDE_AFTER or _clear(t["pynative"], t["graph"]) is None:
            return
    ratio, best = _speedup(t["pynative"], t["graph"])
    if ratio > 1.0 and best > 1.0:
        _choice[sig] = "graph"
        note(f"the compiled training step ran {ratio:.1f}x faster than PyNative on this host; it stays "
             "compiled (MSNB_GRAPH_CHOICE=pynative to force PyNative)")
    else:
        _choice[sig] = "pynative"
        note(f"the compiled training step ran {1 / ratio:.1f}x slower than PyNative on this host; it runs in "
             "PyNative from now on (MSNB_GRAPH_CHOICE=graph to force the graph)"
             if ratio <= 1.0 else
             f"the compiled training step was not clearly faster than PyNative on this host ({ratio:.2f}x, "
             f"fastest steps {best:.2f}x); it runs in PyNative from now on (MSNB_GRAPH_CHOICE=graph to "
             "force the graph)")


def _clear(pynative, graph):
    """``"graph"`` or ``"pynative"`` when every adjacent pair and the fastest steps favour that form
    by more than :data:`CLEAR`, else None (measure on).  A compiled step that wins by 2x or more,
    as the suite's workloads do once compiled, is kept after :data:`DECIDE_AFTER` pairs instead of
    running :data:`MEASURE` slower PyNative steps; a close call still gets every pair."""
    pairs = [p / g for p, g in zip(pynative, graph) if g > 0]
    if len(pairs) < len(pynative) or min(graph) <= 0:
        return None
    best = min(pynative) / min(graph)
    if min(pairs) > CLEAR and best > CLEAR:
        return "graph"
    if max(pairs) < 1 / CLEAR and best < 1 / CLEAR:
        return "pynative"
    return None


def _speedup(pynative, graph) -> tuple[float, float]:
    """``(median of the pairs' PyNative/graph time ratios, fastest PyNative step / fastest graph
    step)``: the graph is kept only when both exceed 1 (a tie stays PyNative: the graph holds
    more memory and PyNative is what the user's code means)."""
    pairs = [p / g for p, g in zip(pynative, graph) if g > 0]
    ratio = statistics.median(pairs) if pairs else 0.0
    best = min(pynative) / min(graph) if min(graph) > 0 else 0.0
    return ratio, best


def _start(desc, module, args, kwargs, eager, leaves, spec, frame):
    _settle()
    predicted = _by_start.get(desc)
    ch = _Chain(desc, predicted)
    _CHAIN[0] = ch
    entry = _compiled.get(predicted)
    if entry is not None:
        form, timed = _form(predicted)
        ch.form = form
        if timed:
            _RUNNING[0] = form
            ch.t0 = CLOCK[0]()
        if form == "pynative":
            ch.mode = "pynative"
            _counts["pynative"] += 1
            return _observed(ch, _plain(eager, args, kwargs), _tensor_cls())
        tensors, gsig = _gather(leaves, frame, predicted)
        if gsig == entry.gsig:
            ch.mode, ch.entry, ch.tensors = "replay", entry, tensors
            try:
                outs = _ms.trace_run(entry.phase, tensors)
            except Exception:  # noqa: BLE001 - a graph that fails to run: region by region from now on
                del _compiled[predicted]
                _fail(ch, "its compiled graph failed to run", "", "")
                ch.mode = "diverged"
                return _gmod.call(module, args, kwargs, eager)
            ch.outs = outs
            _counts["replayed"] += 1
            replayed()
            from ..torch._core import meta, wrap
            pos = 0
            for n, metas in zip(entry.counts, entry.metas):
                ch.flats.append([meta(wrap(o), *m) for o, m in zip(outs[pos:pos + n], metas)])
                pos += n
            return _replay_module(ch, 0, module, args, kwargs, eager, leaves, spec)
        ch.t0 = _RUNNING[0] = None  # other shapes or roles than recorded: not this step's timing
    if predicted is not None and predicted not in _compiled:
        measured = _measure_first(ch, desc, predicted, eager, args, kwargs)
        if measured is not None:
            return measured[0]
    if predicted is not None and predicted not in _compiled and choice_setting() == "pynative" \
            and _eligible(predicted) is None:
        ch.mode = "pynative"  # forced: nothing is recorded or compiled
        _counts["pynative"] += 1
        return _observed(ch, _plain(eager, args, kwargs), _tensor_cls())
    if predicted is not None and predicted not in _compiled and _tries.get(desc, 0) < _MAX_TRIES \
            and _eligible(predicted) is None:
        tensors, gsig = _gather(leaves, frame, predicted, record=True)
        file = frame.f_code.co_filename if frame is not None else ""
        rec = Recording(f"msnb_step_{len(_compiled)}_{_counts['recorded']}.step", tensors, (file, _line(frame)))
        rec.params_out = True
        rec.allow_feeds = False
        event_writes = {}

        def on_write(i):
            if i is not None and _NOW[0] is not None:
                event_writes[i] = _NOW[0]
            elif i is not None:
                event_writes.pop(i, None)  # the user's own code writes it; it runs again at a replay

        rec.on_input_write = on_write
        try:
            rec.__enter__()
        except RuntimeError:
            return _gmod.call(module, args, kwargs, eager)
        ch.mode, ch.rec, ch.tensors, ch.gsig, ch.event_writes = "record", rec, tensors, gsig, event_writes
        ch.clip_pre = None
        return _record_module(ch, eager, args, kwargs, _tensor_cls(), leaves)
    return _observed(ch, _gmod.call(module, args, kwargs, eager), _tensor_cls())


def _record_module(ch, eager, args, kwargs, Tensor, leaves):
    pos = ch.rec._pos
    ch.arg_pos.append(tuple(pos.get(id(a)) for a in leaves))
    _NOW[0] = len(ch.events) - 1
    try:
        out = eager(args, kwargs)
    finally:
        _NOW[0] = None
    try:
        flat, ospec = tree.flatten(out, Tensor)
    except tree.Unsupported:
        flat, ospec = [], None
        _expect(ch, 10 ** 6, None)  # leaves the recording
    ch.flats.append(flat)
    ch.specs.append(ospec)
    return out


def _replay_module(ch, k, module, args, kwargs, eager, leaves, spec):
    from ..torch._core import needs_grad, record
    from ..torch.autograd.grad_mode import STATE as GRAD
    entry = ch.entry
    flat = ch.flats[k]
    diff = [flat[i] for i in entry.diffs[k]]
    if diff and GRAD.enabled:
        # a later divergent use (backward of another tensor) differentiates an eager re-run
        params = [p for p in module.parameters() if p.requires_grad]
        wrt = tuple([a for a in leaves if needs_grad(a)] + params)
        idx = entry.diffs[k]
        written = bool(list(module.buffers()))
        Tensor = _tensor_cls()

        def redo():
            a, kw = tree.unflatten(spec, leaves)
            return tree.flatten(eager(a, kw), Tensor)[0]

        def bwd(*grads):
            return _gmod._eager_backward(redo, idx, wrt, grads, written, False)

        record("CompiledFunctionBackward", diff, wrt, bwd)
    return tree.unflatten(entry.specs[k], flat)


def backward(t, gradient, retain_graph, create_graph, inputs) -> bool:
    """``Tensor.backward`` in graph mode; True when handled here."""
    ch = _CHAIN[0]
    if ch is None or not enabled():
        return False
    desc = ("b", ch.locate(t), gradient is None, bool(retain_graph), bool(create_graph), inputs is None)
    k = len(ch.events)
    ch.events.append(desc)
    if ch.mode == "pynative":
        return False  # PyNative's own backward
    if ch.mode == "record":
        if not _expect(ch, k, desc):
            return False
        targets = [i for i, x in enumerate(ch.tensors) if x.requires_grad]
        if any(ch.tensors[i].grad is not None for i in targets):
            _expect(ch, 10 ** 6, None)
            _fail(ch, "gradients are accumulated (.grad is not None at backward())", "", "")
            return False
        from ..torch.autograd import backward as run
        _NOW[0] = k
        try:
            run(t, gradient, retain_graph, create_graph, inputs=inputs)
        finally:
            _NOW[0] = None
        ch.targets = tuple(i for i in targets if ch.tensors[i].grad is not None)
        return True
    if ch.mode == "replay" and any(ch.tensors[i].grad is not None for i in ch.entry.targets):
        _expect(ch, 10 ** 6, None)  # gradients accumulate into .grad: region by region
        return False
    if ch.mode == "replay" and _expect(ch, k, desc):
        e = ch.entry
        from ..torch._core import meta, wrap
        pre = {}
        if e.clip:  # p.grad holds the unclipped gradient until clip_grad_norm_
            pre = dict(zip(e.clip_targets, ch.outs[e.n_flat + 1: e.n_flat + 1 + len(e.clip_targets)]))
        final = ch.outs[e.grads_at: e.grads_at + len(e.targets)]
        for ti, (i, gm) in enumerate(zip(e.targets, e.gmetas)):
            ch.tensors[i].grad = meta(wrap(pre.get(ti, final[ti])), *gm)
        return True
    return False


def clip(params, grads, numbers, fn):
    """``clip_grad_norm_`` in graph mode (``fn()`` is the PyNative clipping)."""
    ch = _CHAIN[0]
    cur = capture.current()
    if ch is None or not enabled():
        return _gupd.clip_grad_norm(params, grads, numbers, fn) if cur is None else fn()
    desc = ("c", tuple(id(p) for p in params), numbers, tuple((tuple(g.shape), g.dtype) for g in grads))
    k = len(ch.events)
    ch.events.append(desc)
    if ch.mode == "pynative":
        return fn()
    if ch.mode == "record" and _expect(ch, k, desc):
        from ..torch._core import K, wrap
        pos = {id(x): ti for ti, x in enumerate(ch.tensors[i] for i in ch.targets)}
        if any(id(p) not in pos for p in params):
            _expect(ch, 10 ** 6, None)
            return fn()
        ch.clip_targets = tuple(pos[id(p)] for p in params)
        ch.clip_pre = [wrap(K.identity(g)) for g in grads]
        _NOW[0] = k
        try:
            ch.clip_norm = fn()
        finally:
            _NOW[0] = None
        return ch.clip_norm
    if ch.mode == "replay" and _expect(ch, k, desc):
        from ..torch._core import meta, wrap
        e = ch.entry
        final = ch.outs[e.grads_at: e.grads_at + len(e.targets)]
        for p, ti in zip(params, e.clip_targets):
            _ms.set_data(p.grad, final[ti])
        return meta(wrap(ch.outs[e.n_flat]), *e.norm_meta)
    cur = capture.current()
    return _gupd.clip_grad_norm(params, grads, numbers, fn) if cur is None else fn()


def optimizer_step(opt, fn) -> None:
    """``optimizer.step()`` in graph mode (``fn()`` is the PyNative update)."""
    ch = _CHAIN[0]
    cur = capture.current()
    if ch is None or not enabled():
        return _gupd.optimizer_step(opt, fn) if cur is None else fn()
    frame = _caller()
    desc = ("s", _keep(opt), _gupd.opt_key(opt)[3], _line(frame))
    k = len(ch.events)
    ch.events.append(desc)
    _CHAIN[0] = None
    if ch.mode == "record" and _expect(ch, k, desc):
        _NOW[0] = k
        try:
            _gupd._time_step(opt)
            fn()
        finally:
            _NOW[0] = None
        _close(ch)
        return None
    if ch.mode == "replay" and _expect(ch, k, desc):
        _gupd._time_step(opt)
        _commit(ch, len(ch.events))
        _div.pop(ch.first, None)
        _timed_end(ch)
        return None
    sig = tuple(ch.events)
    if ch.mode == "pynative":
        _gupd._time_step(opt)
        fn()
        if sig == ch.predicted:
            _timed_end(ch)
        else:
            _RUNNING[0] = None
            _learn(ch, sig)
        return None
    _RUNNING[0] = None
    _learn(ch, sig)
    return _gupd.optimizer_step(opt, fn) if capture.current() is None else fn()


def _learn(ch, sig) -> None:
    """A step that ran without its graph: what the next step starting the same way should be."""
    _seen[sig] = _seen.get(sig, 0) + 1
    if _by_start.get(ch.first) not in _compiled or _seen[sig] >= 2:
        _by_start[ch.first] = sig


def _close(ch) -> None:
    """Compile the recorded step (at its ``optimizer.step()``)."""
    rec = ch.rec
    sig = tuple(ch.events)
    e = _Entry(rec.phase, ch.gsig)
    outs = []
    for k, flat in enumerate(ch.flats):
        e.counts.append(len(flat))
        e.metas.append(tuple((o.dtype, tuple(o.shape)) for o in flat))
        e.diffs.append(tuple(i for i, o in enumerate(flat) if o.requires_grad))
        outs.extend(flat)
    e.specs = ch.specs
    e.arg_pos = tuple(ch.arg_pos)
    e.n_flat = len(outs)
    e.targets = ch.targets
    e.clip = ch.clip_pre is not None
    if e.clip:
        e.clip_targets = ch.clip_targets
        e.norm_meta = (ch.clip_norm.dtype, tuple(ch.clip_norm.shape))
        outs.append(ch.clip_norm)
        outs.extend(ch.clip_pre)
    final = [ch.tensors[i].grad for i in e.targets]
    e.gmetas = tuple((g.dtype, tuple(g.shape)) for g in final)
    e.grads_at = len(outs)
    outs.extend(final)
    base = len(outs)
    written = list(rec.written)
    pos = {id(t): i for i, t in enumerate(ch.tensors)}
    n_assigned = len(rec._assigned)
    ew = ch.event_writes
    commit = [(i, base + j, ew[i]) for j, i in enumerate(written) if i in ew]
    pbase = base + len(written) + n_assigned
    if any(pid not in pos for pid in rec.param_writes):
        rec.broken = rec.broken or capture.Break("writes a parameter that is not its module's or optimizer's",
                                                 "", "", 0, "")
        pos.update({pid: -1 for pid in rec.param_writes})
    commit += [(pos[pid], pbase + j, ew.get(pos[pid], len(sig) - 1)) for j, pid in enumerate(rec.param_writes)]
    e.commit = tuple(commit)
    ch.rec = None
    try:
        with compiling(_LABEL):
            ok = rec.close(outs)
    except Exception as exc:  # noqa: BLE001 - MindSpore could not compile it: region by region
        from .region import _first_line
        _fail(ch, f"MindSpore could not record or compile it ({_first_line(exc)})", "", "")
        return
    if not ok:
        brk = rec.broken
        _tries[ch.first] = _tries.get(ch.first, 0) + 1
        if _tries[ch.first] >= _MAX_TRIES:
            reason = f"{brk.api} {brk.what}" if brk.api else brk.what
            _fail(ch, reason, brk.where if brk.file else "", brk.text)
        return
    _compiled[sig] = e
    _by_start[ch.first] = sig
    _counts["recorded"] += 1
