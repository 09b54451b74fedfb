"""Run the body of a magic cell the way IPython's ``%%time`` does.

``transform_cell`` -> ``ast_parse`` -> ``transform_ast`` -> exec, with the
last expression evaluated separately so its value is returned and IPython
displays it as the cell's result.  Exceptions are not caught: they leave the
magic, so the cell fails once, with the traceback pointing at its own lines.

The source is cached in ``linecache`` under IPython's cell file name (shown
as ``Cell In[n]``), preceded by one blank line standing for the
``%%torch_on_ascend`` line, so line numbers match what the user sees and
``ms.jit`` can read the source of functions defined in the cell.
"""

from __future__ import annotations

import ast
import re
import sys
from typing import Any

__all__ = ["cache_source", "cell_number", "run_source"]

_CELL_FILE = re.compile(r"<ipython-input-(\d+)-")


def cell_number(shell: Any) -> int:
    """The execution number of the cell running now (its ``In [n]``).

    IPython 9 counts ``execution_count`` up before it runs a cell, so the
    number is read from the file name IPython gave the running cell (the
    frame that called the magic; ipykernel names cell files by a map kept
    by its compiler); outside a cell, ``execution_count``."""
    numbers = getattr(shell.compile, "_filename_map", None) or {}
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if name in numbers:
            return int(numbers[name])
        found = _CELL_FILE.match(name)
        if found:
            return int(found.group(1))
        frame = frame.f_back
    return shell.execution_count


def cache_source(shell: Any, body: str) -> tuple[str, str]:
    """Register the cell in linecache; return (file name, transformed text)."""
    text = "\n" + shell.transform_cell(body)
    filename = shell.compile.cache(text, cell_number(shell), raw_code="\n" + body)
    return filename, text


def run_source(shell: Any, body: str, cell_globals: dict, files: list | None = None) -> Any:
    """Execute ``body`` with ``cell_globals``/``shell.user_ns``; return the last value.

    The cell's file name is appended to ``files`` (tracebacks start there)."""
    __tracebackhide__ = True  # IPython hides this frame in tracebacks
    filename, text = cache_source(shell, body)
    if files is not None:
        files.append(filename)
    tree = shell.compile.ast_parse(text, filename=filename)
    tree = shell.transform_ast(tree)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(shell.compile(tree, filename, "exec"), cell_globals, shell.user_ns)
    if last is not None:
        return eval(shell.compile(last, filename, "eval"), cell_globals, shell.user_ns)
    return None
