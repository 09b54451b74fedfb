"""How the CUDA rules spell a device-agnostic device in their fixes."""

from __future__ import annotations

import ast

__all__ = ["device_expression", "is_cuda_guarded", "topmost_attribute"]


def device_expression(ctx, *, prefer_name: bool = True) -> str | None:
    """``device`` when the cell (or an earlier one) defines it, otherwise
    ``"cuda" if torch.cuda.is_available() else "cpu"`` spelled with the
    cell's torch alias; None when torch is not imported at all."""
    if prefer_name and ctx.infer.lookup("device") is not None:
        return "device"
    torch = ctx.infer.local_alias("torch")
    if torch is None or "." in torch:
        return None
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
