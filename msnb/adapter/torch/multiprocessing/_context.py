"""How msnb starts a ``torch.multiprocessing`` process: a fresh interpreter running torch on MindSpore.

MindSpore cannot run in a forked child once the parent has run a kernel (the
child hangs in its first op: measured with MindSpore 2.10 on CPU), so every
start method (``spawn``, ``fork``, ``forkserver``) starts the child the way
``spawn`` does: a new Python process that receives the ``Process`` object
pickled.  The difference from Python's own ``spawn`` is the child's first
step: it enters msnb's runtime scope (``import torch`` means msnb's, the
parent's mode, AMP level and device) before multiprocessing re-imports the
parent's main script and unpickles the target.  So the target and its
arguments must be picklable, as under ``spawn`` in PyTorch.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import sys
from multiprocessing import context as _mp_context
from multiprocessing import popen_spawn_posix, resource_tracker, spawn, util
from pathlib import Path

__all__ = ["MsnbContext", "MsnbProcess", "child_options", "main"]

_ROOT = str(Path(__file__).resolve().parents[4])  # the folder holding the msnb package
_PROGRAM = (f"import sys; sys.path.insert(0, {_ROOT!r}); "
            "from msnb.adapter.torch.multiprocessing._context import main; main()")


def child_options() -> dict:
    """The running cell's or script's mode, AMP level and device (what the child runs with)."""
    from msnb.runtime.context import active
    ctx = active()
    if ctx is None:
        return {}
    return {"mode": ctx.mode, "amp": ctx.amp, "device": ctx.device}


class _Popen(popen_spawn_posix.Popen):
    """Python's spawn Popen with msnb's child command line."""

    def _launch(self, process_obj):
        tracker_fd = resource_tracker.getfd()  # the child shares this process tree's resource tracker
        self._fds.append(tracker_fd)
        data = io.BytesIO()
        _mp_context.set_spawning_popen(self)
        try:
            _mp_context.reduction.dump(spawn.get_preparation_data(process_obj._name), data)
            try:
                _mp_context.reduction.dump(process_obj, data)
            except (pickle.PicklingError, AttributeError, TypeError) as exc:
                raise pickle.PicklingError(
                    f"msnb starts every torch.multiprocessing process fresh (as the 'spawn' start method does: "
                    f"MindSpore cannot run in a forked child), so the target and its arguments must be "
                    f"picklable, e.g. a function defined at the top level of a module or script: {exc}") from None
        finally:
            _mp_context.set_spawning_popen(None)
        read_end = write_end = None
        child_r = child_w = None
        try:
            read_end, child_w = os.pipe()
            child_r, write_end = os.pipe()
            self._fds += [child_r, child_w]
            cmd = [spawn.get_executable(), *util._args_from_interpreter_flags(), "-c", _PROGRAM,
                   "--multiprocessing-fork", json.dumps(child_options()), str(tracker_fd), str(child_r)]
            self.pid = util.spawnv_passfds(spawn.get_executable(), cmd, self._fds)
            self.sentinel = read_end
            with open(write_end, "wb", closefd=False) as f:
                f.write(data.getbuffer())
        finally:
            self.finalizer = util.Finalize(self, util.close_fds, [fd for fd in (read_end, write_end) if fd is not None])
            for fd in (child_r, child_w):
                if fd is not None:
                    os.close(fd)


class MsnbProcess(_mp_context.SpawnProcess):
    """``torch.multiprocessing.Process``: ``multiprocessing.Process`` whose child runs torch on MindSpore."""

    _start_method = "spawn"

    @staticmethod
    def _Popen(process_obj):  # noqa: N802 - multiprocessing's hook name
        return _Popen(process_obj)


class MsnbContext(_mp_context.SpawnContext):
    """A multiprocessing context (``get_context(...)``) whose processes are :class:`MsnbProcess`.

    ``get_start_method()`` says ``spawn`` (how its processes start, and what
    multiprocessing's locks and queues must know); ``requested`` is the name
    the program asked for."""

    Process = MsnbProcess

    def __init__(self, requested: str = "spawn"):
        self.requested = requested

    def get_context(self, method=None):
        return self if method is None else context_for(method)


_CONTEXTS: dict[str, MsnbContext] = {}


def context_for(method: str) -> MsnbContext:
    if method not in ("spawn", "fork", "forkserver"):
        raise ValueError(f"cannot find context for {method!r}")
    if method not in _CONTEXTS:
        _CONTEXTS[method] = MsnbContext(method)
    return _CONTEXTS[method]


def _die_with_parent() -> None:
    """Linux: end this child (SIGTERM) when its parent dies, so no worker is orphaned."""
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def main() -> None:
    """The child: ``-c PROGRAM --multiprocessing-fork OPTIONS TRACKER_FD PIPE_FD``."""
    from . import reductions
    options, tracker_fd, pipe = json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    os.environ[reductions.CHILD_ENV] = "1"
    _die_with_parent()
    from msnb.runtime import Runtime
    runtime = Runtime(say=lambda line: None)  # the parent has said where it runs
    code = 1
    with runtime.scope(runtime.options(**options)):
        try:
            spawn.spawn_main(pipe_handle=pipe, tracker_fd=tracker_fd)
        except SystemExit as exc:
            code = exc.code
        finally:
            from ... import _ms
            _ms.wait_all()  # the target's last in-place writes (shared memory) reach memory before exit
    sys.exit(code)
