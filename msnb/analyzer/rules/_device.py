"""How the CUDA rules spell a device-agnostic device in their fixes."""

from __future__ import annotations

import ast

import libcst as cst

from ..fixes import Edit

__all__ = ["device_expression", "device_definition", "is_cuda_guarded", "topmost_attribute"]


def device_expression(ctx, *, prefer_name: bool = True) -> str | None:
    """``device`` when the cell (or an earlier one) defines it or when the
    fix defines it (see :func:`device_definition`), otherwise
    ``"cuda" if torch.cuda.is_available() else "cpu"`` spelled with the
    cell's torch alias; None when torch is not imported at all."""
    if prefer_name and ctx.infer.lookup("device") is not None:
        return "device"
    torch = ctx.infer.local_alias("torch")
    if torch is None or "." in torch:
        return None
    if prefer_name and "device" not in ctx.infer.module_scope.names:
        return "device"  # defined once by device_definition()
    return f'"cuda" if {torch}.cuda.is_available() else "cpu"'


def is_cuda_guarded(ctx) -> bool:
    """True when the current node sits in the body of ``... if
    torch.cuda.is_available() else ...`` (already device-agnostic)."""
    for p in reversed(ctx.parents[-3:]):
        if isinstance(p, ast.IfExp):
            test = p.test
            target = test.func if isinstance(test, ast.Call) else test
            q = ctx.infer.qualname(target)
            if q in ("torch.cuda.is_available", "torch.backends.mps.is_available"):
                return True
    return False


def topmost_attribute(node: ast.Attribute, ctx) -> bool:
    """True unless ``node`` is the ``value`` of a longer attribute chain."""
    p = ctx.parent
    return not (isinstance(p, ast.Attribute) and p.value is node)


_DEVICE_KEY = (0, 0, 0, 0)


def device_definition(ctx, dev: str):
    """The edits a rewrite to ``dev`` needs: when ``dev`` is the name
    ``device`` and nothing defines it yet, one cell edit that adds
    ``device = torch.device("cuda" if torch.cuda.is_available() else "cpu")``
    after the cell's leading imports -- the same edit for every finding, so
    a cell with many ``.cuda()`` calls gets one definition."""
    if dev != "device" or ctx.infer.lookup("device") is not None:
        return ()
    torch = ctx.infer.local_alias("torch")
    line = f'device = {torch}.device("cuda" if {torch}.cuda.is_available() else "cpu")'
    return (Edit(cst.Module, _DEVICE_KEY, line),)  # type: ignore[arg-type]
