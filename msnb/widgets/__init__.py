"""msnb's Jupyter widgets: the control panel (``%msnb panel``, ``msnb.panel()``).

Imported only when a panel is asked for, so ``%load_ext msnb`` does not pay
for ipywidgets.  (The factory is ``make_panel``, not ``panel``: the submodule
``msnb.widgets.panel`` would shadow a function of that name.)
"""

from __future__ import annotations

from typing import Any

__all__ = ["make_panel"]


def make_panel(**kwargs: Any):
    """Return a new :class:`~msnb.widgets.panel.ControlPanel` bound to the session settings.

    Display it (it is the last expression of a cell, or ``display(panel())``).
    Raises ImportError with an install hint when ipywidgets is missing.
    """
    try:
        from msnb.widgets.panel import ControlPanel
    except ImportError as exc:
        if exc.name and exc.name.split(".")[0] in ("ipywidgets", "traitlets"):
            raise ImportError("msnb's panel needs ipywidgets: pip install 'ipywidgets>=8'") from exc
        raise
    return ControlPanel(**kwargs)
