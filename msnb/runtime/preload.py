"""MindSpore imported in the background after ``%load_ext msnb``.

``import mindspore`` takes seconds (measured 3-12 s on the 2-core hosts here);
a person takes about that long to type the first ``%%torch_on_ascend`` cell.
:func:`start` (called by ``%load_ext msnb``) begins the import on a
thread; :func:`wait` (called before a magic cell runs) joins it, so the
first cell only waits for what is left of the import.

Why this is safe:

* no deadlock on Python's import locks: the thread imports ``mindspore``
  (which does not import msnb), then msnb's adapter (``msnb.adapter.torch``),
  analyzer and cell runner (which import nothing of the notebook's); the main thread joins it before
  the cell takes any import lock of its own, and a plain cell that imports
  ``mindspore`` meanwhile simply waits for the module's lock and then finds
  it imported;
* nothing printed into another cell: MindSpore's log level (``GLOG_v``) is
  set exactly as the first magic cell would set it before the import starts
  (:func:`msnb.runtime.logs.prepare_environment`), and neither import runs
  kernels (the device and launch mode are still bound by the first cell,
  before MindSpore runs anything);
* a failed background import changes nothing: the error is kept and the
  first cell imports MindSpore itself, raising what the import raises.

``MSNB_PRELOAD=0`` turns it off; ``MSNB_PRELOAD_ADAPTER=0`` preloads MindSpore only.  ``--verbose`` on the very first cell
cannot raise MindSpore's log level any more once the background import ran
(the level is read at import); run ``%load_ext msnb`` with ``GLOG_v=2`` set
for that.
"""

from __future__ import annotations

import os
import sys
import threading
import time

__all__ = ["start", "wait", "state"]

_thread: threading.Thread | None = None
_state: dict = {"started": None, "mindspore": None, "finished": None, "error": None, "waited": 0.0}


def _import() -> None:
    try:
        import mindspore  # noqa: F401
        _state["mindspore"] = time.perf_counter()
        if os.environ.get("MSNB_PRELOAD_ADAPTER", "1").strip().lower() not in ("0", "off", "false", "no"):
            # msnb's PyTorch API next (0.3 s CPU, seconds of wall time on a loaded host): it runs no
            # kernel at import, so the device and launch mode are still the first cell's to bind;
            # then the analyzer (libcst, 0.5 s CPU) and the cell runner the first cell would import
            import msnb.adapter.torch  # noqa: F401
            import msnb.analyzer  # noqa: F401
            import msnb.runtime.engine  # noqa: F401
    except BaseException as exc:  # noqa: BLE001 - kept; the first cell imports it again and raises
        _state["error"] = exc
    finally:
        _state["finished"] = time.perf_counter()


def start() -> bool:
    """Start importing MindSpore on a daemon thread; False when there is nothing to do
    (already imported or importing, or ``MSNB_PRELOAD=0``)."""
    global _thread
    if _thread is not None or "mindspore" in sys.modules:
        return False
    if os.environ.get("MSNB_PRELOAD", "1").strip().lower() in ("0", "off", "false", "no"):
        return False
    from msnb.runtime.logs import prepare_environment
    from msnb.settings import settings

    prepare_environment(bool(settings.snapshot().get("verbose")))
    # MindSpore's import loads concurrent.futures.thread and .process, which register threading
    # atexit hooks: refused once the interpreter is shutting down (a script or kernel that
    # exits while the import runs), so they are imported here, first
    import concurrent.futures.process  # noqa: F401
    import concurrent.futures.thread  # noqa: F401
    _state["started"] = time.perf_counter()
    # not a daemon: a process that exits while the import runs waits for it (interpreter
    # shutdown under a half-imported MindSpore ended in SIGSEGV)
    _thread = threading.Thread(target=_import, name="msnb-preload-mindspore", daemon=False)
    _thread.start()
    return True


def wait() -> None:
    """Block until the background import (if any) has finished; cheap once it has.
    Called on the main thread before a magic cell imports anything."""
    t = _thread
    if t is None or not t.is_alive():
        return
    t0 = time.perf_counter()
    t.join()
    _state["waited"] += time.perf_counter() - t0


def state() -> dict:
    """When the import started and finished (``perf_counter`` seconds), its error, and
    how long cells waited for it -- for the first-cell benchmark and tests."""
    return dict(_state, running=_thread is not None and _thread.is_alive())
