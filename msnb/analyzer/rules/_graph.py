"""Wording and small checks shared by the Graph-mode rules (MSN50x).

The Graph-mode rules speak about two different compilers (see
``Context.graph_code_kind``): msnb's graph mode, which records a module call
while it runs and replays it (``RECORDED``), and MindSpore's ``@ms.jit``,
which parses the function's source (``JIT``).  A construct that breaks one
can be harmless in the other, so each rule words its finding for the
compiler at hand; the phrases live here so the rules say the same thing the
same way, and say what ``docs/graph.md`` says msnb does.
"""

from __future__ import annotations

import ast

from ..inference import JIT, RECORDED

__all__ = ["RECORDED", "JIT", "FALLBACK", "RECORDED_ONLY", "FALLBACK_WHY", "JIT_WHY", "is_self_attribute",
           "formats_tensor", "in_print_call"]

#: What a host read / host random draw inside a recorded forward does.
FALLBACK = "in graph mode this module runs in PyNative (msnb falls back); its layers are still compiled"

#: What a Python side effect inside a recorded forward does.
RECORDED_ONLY = ("in graph mode this runs only on the calls msnb records (the first ones for each input shape), "
                 "not when the compiled graph is replayed")

FALLBACK_WHY = ("msnb's graph mode records a module call once and replays the compiled graph; a replay cannot "
                "re-read a tensor on the host, so msnb runs this module in PyNative instead (same results, one "
                "`msnb graph:` notice line). Its submodules are still compiled, but its own ops are not fused.")

JIT_WHY = ("MindSpore's `@ms.jit` compiler parses this function's source once; this construct either fails to "
           "compile or forces a fallback to the Python interpreter.")


def is_self_attribute(node: ast.AST) -> bool:
    """``self.<attr>``."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def formats_tensor(infer, expr: ast.AST) -> bool | None:
    """Whether turning ``expr`` into text formats a tensor: True (a tensor,
    or an f-string with a tensor field), False (known not to), None
    (unknown)."""
    if isinstance(expr, ast.JoinedStr):
        result: bool | None = False
        for v in expr.values:
            if isinstance(v, ast.FormattedValue):
                inner = formats_tensor(infer, v.value)
                if inner:
                    return True
                if inner is None:
                    result = None
        return result
    if isinstance(expr, ast.Starred):
        return None
    if isinstance(expr, ast.Name):
        b = infer.lookup(expr.id)
        if b is None or b.unknown:
            return None
    if isinstance(expr, ast.Subscript) and _is_shape(infer, expr.value):
        return False  # x.shape[0], x.size()[1]
    k = infer.kind(expr)
    if k is None:
        return None
    return infer.is_tensor(expr)


def _is_shape(infer, expr: ast.AST) -> bool:
    if isinstance(expr, ast.Call) and not expr.args:
        expr = expr.func
        return isinstance(expr, ast.Attribute) and expr.attr == "size" and infer.is_tensor(expr.value)
    return isinstance(expr, ast.Attribute) and expr.attr == "shape" and infer.is_tensor(expr.value)


def in_print_call(ctx) -> bool:
    """True when the current node is inside the arguments of a ``print``
    call (MSN502 reports the ``print`` itself)."""
    for p in reversed(ctx.parents):
        if (isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id == "print"
                and ctx.infer.lookup("print") is None):
            return True
        if isinstance(p, (ast.stmt, ast.Lambda)):
            return False
    return False
