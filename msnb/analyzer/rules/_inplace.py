"""Shared facts and fixes for the in-place / view rules (MSN2xx)."""

from __future__ import annotations

import ast

import libcst as cst

from ._cst import strip_inplace_call

__all__ = ["inplace_method_name", "NOT_REPORTED", "rebind_statement", "is_pure"]

#: In-place by name but harmless or intended on msnb in every mode.
NOT_REPORTED = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "record_stream_"})


def inplace_method_name(call: ast.Call, ctx) -> str | None:
    """``add_`` for ``x.add_(...)`` when it is a real torch.Tensor in-place method."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    name = func.attr
    if not name.endswith("_") or name.startswith("_") or name.endswith("__") or name in NOT_REPORTED:
        return None
    if ctx.torch_api and f"torch.Tensor.{name}" not in ctx.torch_api:
        return None
    return name


def has_out_of_place(name: str, ctx) -> bool:
    return f"torch.Tensor.{name[:-1]}" in ctx.torch_api


def rebind_statement(stmt: cst.CSTNode) -> cst.CSTNode:
    """``recv.op_(args)`` (an Expr statement) -> ``recv = recv.op(args)``."""
    assert isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call)
    call = stmt.value
    assert isinstance(call.func, cst.Attribute)
    return cst.Assign(targets=[cst.AssignTarget(target=call.func.value)], value=strip_inplace_call(call),
                      semicolon=stmt.semicolon)


def is_pure(node: ast.AST) -> bool:
    """True for expressions that can be evaluated twice with the same result
    (names, constants, slices, attribute reads, arithmetic on those)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return is_pure(node.value)
    if isinstance(node, ast.Slice):
        return all(p is None or is_pure(p) for p in (node.lower, node.upper, node.step))
    if isinstance(node, ast.Tuple):
        return all(is_pure(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return is_pure(node.left) and is_pure(node.right)
    if isinstance(node, ast.UnaryOp):
        return is_pure(node.operand)
    if isinstance(node, ast.Subscript):
        return is_pure(node.value) and is_pure(node.slice)
    return False
