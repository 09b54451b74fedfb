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
from typing import Any

__all__ = ["cache_source", "run_source"]


def cache_source(shell: Any, body: str) -> tuple[str, str]:
    """Register the cell in linecache; return (file name, transformed text)."""
    text = "\n" + shell.transform_cell(body)
    filename = shell.compile.cache(text, shell.execution_count, raw_code="\n" + body)
    return filename, text


def run_source(shell: Any, body: str, cell_globals: dict) -> Any:
    """Execute ``body`` with ``cell_globals``/``shell.user_ns``; return the last value."""
    __tracebackhide__ = True  # IPython hides this frame in tracebacks
    filename, text = cache_source(shell, body)
    tree = shell.compile.ast_parse(text, filename=filename)
    tree = shell.transform_ast(tree)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(shell.compile(tree, filename, "exec"), cell_globals, shell.user_ns)
    if last is not None:
        return eval(shell.compile(last, filename, "eval"), cell_globals, shell.user_ns)
    return None
