"""Differential cases of ``torch.multiprocessing`` and ``torch.backends.mps``
against real PyTorch, in this process (no child is started here: the
process-starting paths -- spawn, Process, Queue across processes, shared
memory -- are exercised by ``test_processes.py`` / ``test_shared_memory.py``).

Each case runs the same code on both libraries: parameters and defaults
users pass, values in-process synchronisation objects and queues give back
(tensors included), the start-method and sharing-strategy bookkeeping, and
the errors PyTorch raises for bad input."""

import inspect
import multiprocessing as std_mp
import sys

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
MP = "torch.multiprocessing."


def beh(id, names, fn, **opts):
    CASES.append(case(id, tuple(MP + n if "." not in n else n for n in names), fn, kind="behaviour", **opts))


def params(fn):
    """Parameter names, kinds and defaults (annotations differ in how they are spelled, not in meaning)."""
    return [(p.name, str(p.kind), repr(p.default)) for p in inspect.signature(fn).parameters.values()]


_SIGNED = ("spawn", "start_processes", "set_start_method", "get_start_method", "get_context",
           "set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "get_all_start_methods",
           "Pool", "Manager", "Queue", "SimpleQueue", "JoinableQueue", "Pipe", "Array", "Value", "RawArray",
           "RawValue", "Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition", "Event", "Barrier",
           "Process", "ProcessContext", "SpawnContext", "ProcessRaisedException", "ProcessExitedException",
           "active_children", "allow_connection_pickling", "cpu_count", "current_process", "freeze_support",
           "get_logger", "log_to_stderr", "parent_process", "set_executable", "set_forkserver_preload")
for _n in _SIGNED:
    beh(f"{_n} parameters", (_n,), lambda t, n=_n: params(getattr(t.multiprocessing, n)))

# --- sharing strategies and start methods -------------------------------------------------
beh("sharing strategies", ("get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy"),
    lambda t: (sorted(t.multiprocessing.get_all_sharing_strategies()), t.multiprocessing.get_sharing_strategy(),
               t.multiprocessing.set_sharing_strategy("file_descriptor"), t.multiprocessing.get_sharing_strategy()))
beh("an unknown sharing strategy is refused", ("set_sharing_strategy",),
    lambda t: t.multiprocessing.set_sharing_strategy("shared_files"))
beh("start methods", ("get_all_start_methods",), lambda t: t.multiprocessing.get_all_start_methods())
beh("an unknown start method is refused", ("get_context",), lambda t: t.multiprocessing.get_context("thread"))
beh("a spawn context", ("get_context",),  # a 'fork' one says 'spawn' under msnb (the registry note says why)
    lambda t: (t.multiprocessing.get_context("spawn").get_start_method(),
               t.multiprocessing.get_context("spawn").get_context() is t.multiprocessing.get_context("spawn")))


def _start_method_round(t):
    """set_start_method: refused when already set unless force=True; the previous state is restored after."""
    mp = t.multiprocessing
    before = mp.get_start_method(allow_none=True)
    try:
        mp.set_start_method("spawn", force=True)
        got = mp.get_start_method()
        try:
            mp.set_start_method("spawn")
            again = "accepted"
        except RuntimeError as e:
            again = str(e)
        mp.set_start_method(None, force=True)
        return got, again, mp.get_start_method(allow_none=True)
    finally:
        mp.set_start_method(before, force=True)


beh("set_start_method twice needs force", ("set_start_method", "get_start_method"), _start_method_round)

# --- in-process synchronisation objects --------------------------------------------------------
beh("Lock", ("Lock",), lambda t: (lambda l: (l.acquire(), l.acquire(False), l.release(), l.acquire(timeout=0.01)))(
    t.multiprocessing.Lock()))
beh("RLock", ("RLock",), lambda t: (lambda l: (l.acquire(), l.acquire(False), l.release(), l.release()))(
    t.multiprocessing.RLock()))
beh("Semaphore", ("Semaphore",), lambda t: (lambda s: (s.acquire(), s.acquire(), s.acquire(False), s.get_value()))(
    t.multiprocessing.Semaphore(2)))
beh("BoundedSemaphore over-release", ("BoundedSemaphore",),
    lambda t: (lambda s: (s.acquire(), s.release(), s.release()))(t.multiprocessing.BoundedSemaphore(1)))
beh("Event", ("Event",), lambda t: (lambda e: (e.is_set(), e.set(), e.is_set(), e.wait(0.01), e.clear(),
                                                  e.wait(0.01)))(t.multiprocessing.Event()))
beh("Condition", ("Condition",), lambda t: (lambda c: (c.acquire(), c.wait(0.01), c.notify_all(), c.release()))(
    t.multiprocessing.Condition()))
beh("Barrier", ("Barrier",), lambda t: (lambda b: (b.parties, b.n_waiting, b.broken))(t.multiprocessing.Barrier(3)))


def _values(t):
    mp = t.multiprocessing
    v, a = mp.Value("i", 7), mp.Array("d", [1.5, 2.5])
    rv, ra = mp.RawValue("f", 0.5), mp.RawArray("i", 3)
    v.value += 1
    a[1] = 4.0
    return v.value, list(a), rv.value, list(ra), type(v.get_lock()).__name__


beh("Value / Array / RawValue / RawArray", ("Value", "Array", "RawValue", "RawArray"), _values)

# --- queues and pipes carry tensors -------------------------------------------------------------
X = np.arange(6, dtype=np.float32).reshape(2, 3)


def _queues(t):
    mp = t.multiprocessing
    out = []
    for q in (mp.Queue(), mp.SimpleQueue(), mp.JoinableQueue()):
        q.put(t.tensor(X))
        q.put({"step": 3, "w": t.tensor(X) * 2})
        out.append(q.get())
        d = q.get()
        out += [d["step"], d["w"]]
        if hasattr(q, "task_done"):
            q.task_done()
            q.task_done()
            q.join()
    return out


beh("queues carry tensors", ("Queue", "SimpleQueue", "JoinableQueue"), _queues)


def _pipe(t):
    a, b = t.multiprocessing.Pipe()
    a.send([t.tensor(X), "x"])
    got = b.recv()
    a.close(), b.close()
    return got


beh("Pipe carries tensors", ("Pipe",), _pipe)
beh("an empty Queue times out", ("Queue",), lambda t: t.multiprocessing.Queue().get(timeout=0.01))

# --- process bookkeeping in the parent ---------------------------------------------------------
beh("process bookkeeping", ("active_children", "cpu_count", "current_process", "parent_process",
                            "freeze_support", "allow_connection_pickling"),
    lambda t: (t.multiprocessing.active_children(), t.multiprocessing.cpu_count() == std_mp.cpu_count(),
               t.multiprocessing.current_process().name, t.multiprocessing.parent_process(),
               t.multiprocessing.freeze_support(), t.multiprocessing.allow_connection_pickling()))


def _logger(t):
    lg = t.multiprocessing.get_logger()
    handlers = list(lg.handlers)
    level = lg.level
    try:
        lg2 = t.multiprocessing.log_to_stderr(30)
        return lg.name, lg2 is lg, lg.level
    finally:
        lg.handlers[:] = handlers
        lg.setLevel(level)


beh("get_logger / log_to_stderr", ("get_logger", "log_to_stderr"), _logger)
beh("set_executable / set_forkserver_preload", ("set_executable", "set_forkserver_preload"),
    lambda t: (t.multiprocessing.set_executable(sys.executable), t.multiprocessing.set_forkserver_preload([])))
beh("an unstarted Process", ("Process",),
    lambda t: (lambda p: (p.name.startswith("Process-"), p.is_alive(), p.exitcode, p.daemon, p.pid))(
        t.multiprocessing.Process(target=print)))

# --- exceptions --------------------------------------------------------------------------------
beh("standard exceptions", ("AuthenticationError", "BufferTooShort", "ProcessError", "TimeoutError"),
    lambda t: [getattr(t.multiprocessing, n) is getattr(std_mp, n)
               for n in ("AuthenticationError", "BufferTooShort", "ProcessError", "TimeoutError")])


def _spawn_exceptions(t):
    mp = t.multiprocessing
    e = mp.ProcessRaisedException("boom", 1, 4242)
    x = mp.ProcessExitedException("died", 0, 17, exit_code=-9, signal_name="SIGKILL")
    return (str(e), e.error_index, e.error_pid, str(x), x.exit_code, x.signal_name, isinstance(e, Exception),
            issubclass(mp.SpawnContext, mp.ProcessContext), issubclass(mp.ProcessRaisedException, Exception))


beh("spawn's exceptions", ("ProcessRaisedException", "ProcessExitedException", "SpawnContext", "ProcessContext"),
    _spawn_exceptions)
beh("spawn refuses an unknown start method", ("spawn", "start_processes"),
    lambda t: t.multiprocessing.start_processes(print, nprocs=1, start_method="thread"))

# --- torch.backends.mps -------------------------------------------------------------------------
beh("mps is neither built nor available", ("torch.backends.mps.is_available", "torch.backends.mps.is_built"),
    lambda t: (t.backends.mps.is_available(), t.backends.mps.is_built()))


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_multiprocessing_matches_pytorch(c):
    run_case(c)
