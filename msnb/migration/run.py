"""``run_notebook``: execute a notebook headless through nbclient, msnb loaded.

The kernel is the ``python3`` kernel of the running environment.  When the
notebook does not load msnb itself, ``%load_ext msnb`` runs first in the
kernel, outside the notebook (it adds no cell).  Cells run one by one with a
tqdm bar; the first failing cell stops the run, and
:class:`RunResult` carries its number and its traceback as plain text.
The executed notebook (with the outputs up to the failure) is written
atomically when ``out`` is given.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .atomic import atomic_write
from .sources import InputError, load_source

__all__ = ["RunResult", "run_notebook", "strip_ansi"]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LOAD_EXT = re.compile(r"^\s*%load_ext\s+msnb\s*$", re.M)


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour codes (tracebacks from IPython)."""
    return _ANSI.sub("", text)


@dataclass
class RunResult:
    path: Path
    ok: bool
    cells_run: int
    seconds: float
    failed_cell: int | None = None  # 1-based
    error: str | None = None  # "ValueError: boom"
    traceback: str = ""
    out: Path | None = None
    notebook: nbformat.NotebookNode | None = None


def _error_output(cell) -> tuple[str, str]:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return (f"{output.get('ename', 'Error')}: {output.get('evalue', '')}",
                    strip_ansi("\n".join(output.get("traceback", []))))
    return "cell failed", ""


def run_notebook(path: str | Path, out: str | Path | None = None, *, timeout: float | None = 600,
                 progress: bool | None = None, kernel_name: str = "python3", cwd: str | Path | None = None
                 ) -> RunResult:
    """Run every code cell of ``path`` in order; see the module docstring.
    ``timeout`` is per cell in seconds (None: no limit); ``cwd`` defaults to
    the notebook's folder.  Raises :class:`InputError` for a bad notebook."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError
    from tqdm import tqdm

    path = Path(path)
    source = load_source(path)
    if source.kind != "notebook":
        raise InputError(path, "not a notebook; run scripts with `msnb exec SCRIPT`")
    if out is not None and Path(out).is_dir():
        raise InputError(out, "is a folder, not a file")
    nb = source.nb
    workdir = Path(cwd) if cwd is not None else path.resolve().parent
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name,
                            resources={"metadata": {"path": str(workdir)}})
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    needs_load = not any(_LOAD_EXT.search(nb.cells[i].source) for i in code)
    enabled = sys.stderr.isatty() if progress is None else progress
    result = RunResult(path, True, 0, 0.0, notebook=nb)
    start = time.perf_counter()
    with client.setup_kernel():
        if needs_load:
            loader = nbformat.v4.new_code_cell("%load_ext msnb")
            nb.cells.append(loader)  # nbclient stores a cell back by index
            try:
                client.execute_cell(loader, len(nb.cells) - 1)
            except CellExecutionError:
                result.ok = False
                result.error, result.traceback = _error_output(loader)
                result.error = f"could not load msnb in the kernel: {result.error}"
                code = []
            finally:
                nb.cells.pop()
        with tqdm(total=len(code), unit="cell", desc=f"msnb run {path.name}", disable=not enabled,
                  file=sys.stderr, leave=False) as bar:
            for i in code:
                try:
                    client.execute_cell(nb.cells[i], i)
                except CellTimeoutError:
                    result.ok, result.failed_cell = False, i + 1
                    result.error = f"TimeoutError: cell {i + 1} ran longer than {timeout} s"
                    break
                except CellExecutionError:
                    result.ok, result.failed_cell = False, i + 1
                    result.error, result.traceback = _error_output(nb.cells[i])
                    break
                finally:
                    bar.update()
                result.cells_run += 1
    result.seconds = time.perf_counter() - start
    if out is not None:
        atomic_write(out, nbformat.writes(nb, version=nbformat.NO_CONVERT) + "\n")
        result.out = Path(out)
    return result
