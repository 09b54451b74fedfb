"""The migration tools behind ``msnb scan``, ``msnb migrate`` and ``msnb run``.

The command line, the widgets and the JupyterLab extension all call these
functions; none of them reaches into another's internals.

    >>> from msnb.migration import scan_paths, render, migrate_notebook, run_notebook
    >>> report = scan_paths(["notebooks/"])
    >>> print(render(report, "table"))
    >>> result = migrate_notebook("train.ipynb")          # writes train_msnb.ipynb
    >>> run = run_notebook(result.dst, timeout=600)
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["scan_paths", "scan_file", "ScanReport", "FileReport", "render", "FORMATS", "migrate_notebook",
           "migrate_script", "migrate_path", "default_output", "MigrationResult", "run_notebook", "RunResult",
           "InputError", "lookup", "ApiStatus"]

#: public name -> submodule; imported on first use so that ``import
#: msnb.migration._startup`` (run before anything else by the command line)
#: stays cheap.
_HOME = {
    "scan_paths": "scan", "scan_file": "scan", "ScanReport": "scan", "FileReport": "scan",
    "render": "formats", "FORMATS": "formats",
    "migrate_notebook": "migrate", "migrate_script": "migrate", "migrate_path": "migrate",
    "default_output": "migrate", "MigrationResult": "migrate",
    "run_notebook": "run", "RunResult": "run",
    "InputError": "sources", "lookup": "support_query", "ApiStatus": "support_query",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'msnb.migration' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"msnb.migration.{_HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
