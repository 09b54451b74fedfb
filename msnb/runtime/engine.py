"""The runtime engine: everything a magic cell or ``msnb exec`` script needs.

A plain class with no IPython dependency of its own (like autoreload's
engine), so the magics stay a thin front and tests can drive it directly.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator

from msnb.runtime import report
from msnb.runtime.analysis import check
from msnb.runtime.cell import run_source
from msnb.runtime.context import CellContext, DeviceState, mindspore_version
from msnb.runtime.importer import ImportScope, is_adapter_object
from msnb.runtime.logs import StderrFilter, prepare_environment
from msnb.runtime.namespace import CellGlobals
from msnb.settings import Settings, settings as shared_settings

__all__ = ["Runtime"]


def _display(bundle: dict[str, str]) -> None:
    from IPython.display import display

    display(bundle, raw=True)


class Runtime:
    """Runs cells and scripts with adapter imports and MindSpore context.

    ``options`` passed to :meth:`run_cell` / :meth:`scope` are a full
    settings dict (see :meth:`options`): per-cell flags over session defaults.
    """

    def __init__(
        self,
        settings: Settings = shared_settings,
        say: Callable[[str], None] = print,
        show: Callable[[dict[str, str]], None] = _display,
    ) -> None:
        self.settings = settings
        self.devices = DeviceState(say)
        self._show = show

    def options(self, **flags: Any) -> dict[str, Any]:
        """Session settings overridden by the flags that are not None (validated)."""
        options = self.settings.snapshot()
        for name, value in flags.items():
            if value is not None:
                options[name] = self.settings.validate(name, value)
        return options

    @contextlib.contextmanager
    def scope(self, options: dict[str, Any]) -> Iterator[CellContext]:
        """Adapter imports, quiet logs and MindSpore context, restored on exit."""
        prepare_environment(options["verbose"])
        with StderrFilter(active=not options["verbose"]):
            context = CellContext(options["mode"], options["amp"], options["device"], self.devices)
            with context, ImportScope():
                yield context

    def run_cell(self, shell: Any, body: str, options: dict[str, Any], cell: str | None = None) -> Any:
        """Run a ``%%torch_on_ascend`` cell body; return its last expression's value.

        ``cell`` is the whole cell, magic line included, for the analyzer, so
        its line numbers are the ones the user sees (default: a blank line
        standing for the magic line, then the body).
        """
        __tracebackhide__ = True
        if options["analyze"]:
            check("\n" + body if cell is None else cell, options["mode"], self._show,
                  ignore=options.get("ignore", ()), advice=options.get("advice", False))
        cell_globals = CellGlobals(shell.user_ns)
        run = report.record_start(options)
        error = None
        try:
            with self.scope(options) as context:
                run.target = context.target
                return run_source(shell, body, cell_globals)
        except BaseException as exc:
            error = exc
            raise
        finally:
            report.record_finish(run, error)
            cell_globals.flush()
            cell_globals.pin(
                (name, value)
                for name, value in list(shell.user_ns.items())
                if not name.startswith("_") and is_adapter_object(value)
            )

    def explain(self, reset: bool = False) -> str:
        """What graph mode compiled and, for what ran in PyNative instead, why
        and where -- since the kernel started or the last ``reset``."""
        graph = sys.modules.get("msnb.adapter.graph")
        if graph is None:
            return "graph mode has not run in this kernel yet (run a cell with --mode graph)"
        text = graph.explain()
        if reset:
            graph.reset()
            text += "\n(counts and fallbacks reset)"
        return text

    def status(self) -> dict[str, str]:
        """Mode, AMP, device (and the bound target once known), MindSpore version."""
        values = self.settings.snapshot()
        device = values["device"]
        if self.devices.target:
            device = f"{device} (running on {self.devices.target})"
        return {
            "mode": values["mode"],
            "amp": values["amp"],
            "device": device,
            "analyze": "on" if values["analyze"] else "off",
            "verbose": "on" if values["verbose"] else "off",
            "mindspore": mindspore_version(),
        }
