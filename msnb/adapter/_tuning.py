"""Per-host kernel choices, measured once and cached per machine.

Some formulations win on one CPU and lose on another (MindSpore's native CPU
convolution ran 13x slower on one host than on another).  Instead of
constants measured elsewhere, :func:`choose` times the candidates the first
time a key (an op and its shapes) is seen and keeps the fastest:

* in memory for the process, and in a JSON file under the user cache
  directory (``platformdirs.user_cache_dir("msnb")/kernel-choices.json``, or
  ``$MSNB_TUNING_CACHE``), in a section keyed by this host: CPU model, core
  count, MindSpore version and :data:`VERSION` (bumped when a formulation
  changes, so old measurements are not reused);
* a missing, unreadable or corrupt file counts as empty and is rewritten;
  a file that cannot be written (read-only home) only costs re-measuring in
  the next process;
* ``MSNB_KERNEL_TUNING=0`` turns measuring off: every key takes the
  caller's default (the constants-based plan), nothing is read or written.

Nothing here knows about convolutions: ``_dispatch`` passes the candidates
and a measuring function.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
import threading

__all__ = ["VERSION", "enabled", "cache_file", "host_key", "choose", "forget"]

#: bump when a measured formulation changes, so cached choices are measured again
VERSION = 1
_lock = threading.Lock()
_memory: dict = {}  # key -> choice, this process
_loaded: dict = {}  # cache path -> the file's section for this host (as read)
_said: list = []  # the one-line notice of the first measurement in this process


def enabled() -> bool:
    """False when ``MSNB_KERNEL_TUNING`` is ``0``/``off``/``false``/``no``."""
    return os.environ.get("MSNB_KERNEL_TUNING", "1").strip().lower() not in ("0", "off", "false", "no")


def cache_file() -> str:
    """Where choices are kept: ``$MSNB_TUNING_CACHE`` or the user cache directory."""
    path = os.environ.get("MSNB_TUNING_CACHE")
    if path:
        return path
    try:
        from platformdirs import user_cache_dir
        base = user_cache_dir("msnb")
    except ImportError:  # platformdirs comes with Jupyter; without it, the XDG default
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "msnb")
    return os.path.join(base, "kernel-choices.json")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def host_key() -> str:
    """This machine as the cache sees it: CPU model, cores, MindSpore version, :data:`VERSION`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    from ._ms import ms
    return f"{_cpu_model()} | {cores} cores | mindspore {ms.__version__} | msnb-tuning {VERSION}"


def _read(path: str) -> dict:
    """All sections of the file; ``{}`` when it is missing or not a JSON object of objects."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def _write(path: str, host: str, key: str, choice) -> None:
    """Add ``key: choice`` to this host's section; atomic (a reader never sees half a file)."""
    data = _read(path)
    data.setdefault(host, {})[key] = choice
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".kernel-choices.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _section(path: str, host: str) -> dict:
    sec = _loaded.get((path, host))
    if sec is None:
        sec = _loaded[(path, host)] = dict(_read(path).get(host, {}))
    return sec


def choose(key: str, default, measure, valid=None):
    """The choice for ``key``: from memory, from this host's cache section, or
    ``measure()`` (which returns the fastest candidate) -- then remembered.

    ``default`` is returned when measuring is off, and when ``measure`` raises
    (a candidate the kernels cannot run; not cached).  ``valid(choice)``
    rejects a cached value of the wrong form (an edited or older file), which
    is then measured again."""
    if not enabled():
        return default
    got = _memory.get(key)
    if got is not None:
        return got
    with _lock:
        path, host = cache_file(), host_key()
        sec = _section(path, host)
        got = sec.get(key)
        if got is not None and (valid is None or valid(got)):
            _memory[key] = got
            return got
        if not _said:
            _said.append(True)
            import sys
            print(f"msnb: measuring which kernels are fastest on this machine (once per shape, kept in {path}; "
                  "MSNB_KERNEL_TUNING=0 turns this off)", file=sys.stderr)
        try:
            got = measure()
        except Exception:  # noqa: BLE001 - a failing candidate must not fail the user's op
            return default
        if valid is not None and not valid(got):
            return default
        _memory[key] = sec[key] = got
        _write(path, host, key, got)
        return got


def forget() -> None:
    """Drop what this process remembers (the file stays); the next lookups read it again."""
    with _lock:
        _memory.clear()
        _loaded.clear()
