"""Run a Python file the way ``python SCRIPT ARGS...`` would, on the adapter.

``sys.argv``, ``sys.path[0]`` (the script's folder, so sibling modules
import) and ``__name__ == "__main__"`` are set as the interpreter sets them;
``SystemExit`` passes through, so exit codes are the script's own.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import Any, Sequence

__all__ = ["run_script", "run_module", "MODULE_COMMANDS"]

#: commands ``msnb exec`` runs as modules (``msnb exec torchrun ...``)
MODULE_COMMANDS = {"torchrun": "torch.distributed.run"}


def run_script(runtime: Any, path: str, args: Sequence[str], options: dict[str, Any],
               profile: str | None = None) -> None:
    """Run ``path`` with ``args`` inside ``runtime.scope(options)``; restore argv/path.

    ``profile`` (``"calls"``/``"lines"``) prints msnb's profile table to stderr after."""
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [path, *args]
    folder = os.path.dirname(os.path.abspath(path))
    if sys.path:
        sys.path[0] = folder
    else:
        sys.path.append(folder)
    try:
        with runtime.scope(options):
            if profile is None:
                runpy.run_path(path, run_name="__main__")
            else:
                _profiled(path, profile)
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0


def _profiled(path: str, kind: str) -> None:
    from msnb.runtime.profile import Profiler

    profiler = Profiler(path, lines=kind == "lines")
    try:
        with profiler:
            runpy.run_path(path, run_name="__main__")
    finally:
        print(profiler.render_text(), file=sys.stderr)


def run_module(runtime: Any, name: str, args: Sequence[str], options: dict[str, Any]) -> None:
    """``python -m NAME ARGS...`` inside ``runtime.scope(options)``: ``torch.*`` modules are msnb's
    (``-m torch.distributed.run`` is msnb's torchrun); restore argv/path after."""
    import importlib.util

    from msnb.adapter import adapter_module_for

    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [name, *args]
    sys.path.insert(0, os.getcwd())  # as ``python -m`` does
    try:
        with runtime.scope(options):
            target = adapter_module_for(name) or name
            if importlib.util.find_spec(target) is None:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            runpy.run_module(target, run_name="__main__", alter_sys=True)
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
