"""msnb's runtime: runs cells and scripts with ``torch`` resolved to the adapter.

Importing this package imports neither MindSpore nor the adapter; that
happens when the first cell or script runs.  ``Runtime`` is loaded on first
access so that ``%load_ext msnb`` (which needs only
:mod:`msnb.runtime.namespace`) stays cheap.
"""

from typing import Any

__all__ = ["Runtime"]


def __getattr__(name: str) -> Any:
    if name == "Runtime":
        from msnb.runtime.engine import Runtime

        return Runtime
    raise AttributeError(f"module 'msnb.runtime' has no attribute {name!r}")
