"""``%%torch_on_ascend`` (run a cell on MindSpore) and ``%torch_on_ascend``
(set session defaults for later cells).  Thin: parse flags, call the runtime.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class

from msnb.magics.flags import compare_flag, declare_flags, nproc_flag, parse_flags, usage_text
from msnb.settings import settings

__all__ = ["TorchOnAscendMagics"]


@magics_class
class TorchOnAscendMagics(Magics):
    """Front of :class:`msnb.runtime.Runtime` for one IPython shell."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self._runtime = None

    @property
    def runtime(self):
        """The engine, created on first use so ``%load_ext`` stays cheap."""
        if self._runtime is None:
            from msnb.runtime import Runtime

            self._runtime = Runtime(settings)
        return self._runtime

    @line_cell_magic
    @declare_flags
    def torch_on_ascend(self, line: str, cell: str | None = None) -> Any:
        """Run this cell's PyTorch code on MindSpore through msnb's adapter.

        As a line magic, set the defaults for later cells instead.
        """
        __tracebackhide__ = True
        wants_help, flags = parse_flags(self.torch_on_ascend, line)
        if wants_help:
            print(usage_text(self.torch_on_ascend, "%torch_on_ascend" if cell is None else "%%torch_on_ascend"))
            return None
        if "ignore" in flags:  # a cell's --ignore adds to the session's (%msnb ignore)
            flags["ignore"] = tuple(sorted(set(settings.ignore) | set(flags["ignore"])))
        profile = flags.pop("profile")
        compare = compare_flag(self.torch_on_ascend, line)
        nproc = nproc_flag(self.torch_on_ascend, line)
        if nproc is not None and cell is None:
            raise UsageError("--nproc applies to one cell: use it on a %%torch_on_ascend cell")
        if nproc is not None and (compare is not None or profile is not None):
            raise UsageError("--nproc cannot be combined with --compare or --profile")
        if cell is None:
            if profile is not None:
                raise UsageError("--profile applies to one cell: use it on a %%torch_on_ascend cell")
            if compare is not None:
                raise UsageError("--compare applies to one cell: use it with %%torch_on_ascend")
            self._set_defaults(flags)
            return None
        from msnb.runtime.context import DeviceError

        try:
            options = self.runtime.options(**flags)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        try:
            whole = f"%%torch_on_ascend {line}".rstrip() + "\n" + cell
            if nproc is not None:
                return self.runtime.run_cell_on_workers(self.shell, cell, options, nproc, cell=whole)
            if compare is not None:
                if profile is not None:
                    raise UsageError("--compare and --profile cannot be combined: use one at a time")
                from msnb.compare import run_cell_compared

                return run_cell_compared(self.runtime, self.shell, cell, options, whole, compare)
            return self.runtime.run_cell(self.shell, cell, options, cell=whole, profile=profile)
        except DeviceError as exc:
            raise UsageError(str(exc)) from None

    def _set_defaults(self, flags: dict[str, Any]) -> None:
        changes = {name: value for name, value in flags.items() if value is not None}
        try:
            settings.update(**changes)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        values = settings.snapshot()
        print("msnb defaults: " + "  ".join(f"{k}={v}" for k, v in values.items()))
