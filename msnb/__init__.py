"""msnb: run PyTorch notebook cells unchanged on MindSpore.

``%load_ext msnb`` adds the ``%%torch_on_ascend`` cell magic.  Loading is
cheap on purpose: it starts importing MindSpore on a background thread
(:mod:`msnb.runtime.preload`; ``MSNB_PRELOAD=0`` turns that off) and returns;
the first cell that uses the magic waits for what is left of that import.
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_ipython_extension", "unload_ipython_extension", "panel", "compare",
           "_jupyter_labextension_paths", "_jupyter_server_extension_points"]
__version__ = "0.1.0"


def load_ipython_extension(ipython: Any) -> None:
    """Called by ``%load_ext msnb``: register the magics and hooks."""
    from msnb import frontend_comm
    from msnb.magics import register

    register(ipython)
    frontend_comm.register(ipython)
    from msnb.runtime import preload

    preload.start()


def unload_ipython_extension(ipython: Any) -> None:
    """Called by ``%unload_ext msnb``: remove everything loading added."""
    from msnb import frontend_comm
    from msnb.magics import unregister

    unregister(ipython)
    frontend_comm.unregister(ipython)


def panel(**kwargs: Any) -> Any:
    """A new control panel (ipywidgets) bound to the session settings; display it.

    Same as ``%msnb panel``; see :mod:`msnb.widgets.panel`.
    """
    from msnb.widgets import make_panel

    return make_panel(**kwargs)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where JupyterLab finds msnb's front-end extension (built into ``msnb/labextension``)."""
    return [{"src": "labextension", "dest": "msnb"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """The jupyter_server extension serving ``/msnb/analyze`` and ``/msnb/fix``."""
    return [{"module": "msnb.server"}]


def __getattr__(name: str) -> Any:
    """``msnb.compare`` (a callable package, see :mod:`msnb.compare`) is imported on first use."""
    if name == "compare":
        import importlib

        return importlib.import_module("msnb.compare")
    raise AttributeError(f"module 'msnb' has no attribute {name!r}")
