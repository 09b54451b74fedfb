"""The runtime engine: everything a magic cell or ``msnb exec`` script needs.

A plain class with no IPython dependency of its own (like autoreload's
engine), so the magics stay a thin front and tests can drive it directly.
"""

from __future__ import annotations

import ast
import contextlib
import sys
from typing import Any, Callable, Iterator

from msnb.runtime import report, tracebacks
from msnb.runtime.analysis import check
from msnb.runtime.cell import run_source
from msnb.runtime.context import CellContext, DeviceState, mindspore_version
from msnb.runtime.importer import ImportScope, is_adapter_object, shadow_real_torch, unshadow
from msnb.runtime.interrupts import InterruptGuard
from msnb.runtime.logs import StderrFilter, prepare_environment
from msnb.runtime.namespace import CellGlobals
from msnb.settings import Settings, settings as shared_settings

__all__ = ["Runtime"]


def _display(bundle: dict[str, str]) -> None:
    from IPython.display import display

    display(bundle, raw=True)


def _bound_names(shell: Any, body: str) -> set[str]:
    """Names the cell's top level binds (imports, assignments, defs), read from its source."""
    try:
        tree = ast.parse(shell.transform_cell(body))
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return names


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
        from msnb.runtime import preload

        preload.wait()  # MindSpore's import begun by %load_ext (nothing to wait for after that)
        prepare_environment(options["verbose"])
        with StderrFilter(active=not options["verbose"]):
            context = CellContext(options["mode"], options["amp"], options["device"], self.devices)
            with InterruptGuard(), context, ImportScope():
                yield context

    def run_cell(self, shell: Any, body: str, options: dict[str, Any], cell: str | None = None,
                 profile: str | None = None) -> Any:
        """Run a ``%%torch_on_ascend`` cell body; return its last expression's value.

        ``profile`` (``"calls"`` or ``"lines"``) shows :mod:`msnb.runtime.profile`'s
        table after the cell.

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
        files: list[str] = []
        try:
            with self.scope(options) as context:
                run.target = context.target
                shadowed = shadow_real_torch(shell.user_ns)
                try:
                    if profile is None:
                        return run_source(shell, body, cell_globals, files)
                    return self._profiled(shell, body, cell_globals, files, profile)
                finally:
                    if shadowed:
                        cell_globals.pin((name, shell.user_ns[name]) for name in shadowed
                                         if name in shell.user_ns and is_adapter_object(shell.user_ns[name]))
                        unshadow(shell.user_ns, shadowed, _bound_names(shell, body))
        except BaseException as exc:
            error = exc
            if options["verbose"] or not files:
                raise
            shown = tracebacks.as_torch_error(exc)
            tracebacks.attach_renderer(shown, shell, files[0])
            if shown is exc:
                raise
            raise shown from None
        finally:
            step = sys.modules.get("msnb.adapter.graph.step")
            if step is not None:  # a training step left open by the cell (an error, no step()) ends with it
                step.abandon()
            report.record_finish(run, error)
            cell_globals.flush()
            cell_globals.pin(
                (name, value)
                for name, value in list(shell.user_ns.items())
                if not name.startswith("_") and is_adapter_object(value)
            )

    def run_cell_on_workers(self, shell: Any, body: str, options: dict[str, Any], nproc: int,
                            cell: str | None = None) -> None:
        """Run a cell body as a script on ``nproc`` workers (``%%torch_on_ascend --nproc N``).

        Each worker starts fresh (the notebook's variables are not there) with
        torchrun's environment; its output is shown prefixed ``[rank k]``.  A
        failing rank ends all ranks and raises :class:`~msnb.runtime.launch.WorkersFailed`
        (its traceback is in the output); an interrupt ends the workers and
        raises KeyboardInterrupt."""
        __tracebackhide__ = True
        from msnb.runtime.launch import WorkersFailed, launch_source

        if options["analyze"]:
            check("\n" + body if cell is None else cell, options["mode"], self._show,
                  ignore=options.get("ignore", ()), advice=options.get("advice", False))
        flags = ["--mode", options["mode"], "--amp", options["amp"], "--device", options["device"]]
        if options["verbose"]:
            flags.append("--verbose")
        code = launch_source(shell.transform_cell(body), nproc, flags, out=sys.stdout, err=sys.stderr)
        if code == 130:
            raise KeyboardInterrupt
        if code:
            raise WorkersFailed(f"the cell failed on {nproc} workers (exit code {code}); every rank was ended",
                                code)

    def _profiled(self, shell: Any, body: str, cell_globals: dict, files: list, kind: str) -> Any:
        """Run the cell under the profiler; show its table after, also when the cell fails."""
        __tracebackhide__ = True
        from msnb.runtime.cell import cache_source
        from msnb.runtime.profile import Profiler

        filename, _ = cache_source(shell, body)  # the same name run_source will use
        profiler = Profiler(filename, lines=kind == "lines")
        try:
            with profiler:
                return run_source(shell, body, cell_globals, files)
        finally:
            self._show(profiler.bundle())

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
