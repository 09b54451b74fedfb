"""Small libcst builders shared by rule fixes."""

from __future__ import annotations

import functools

import libcst as cst

__all__ = ["dotted", "method_call", "with_method", "rename_method", "strip_inplace_call",
           "add_keyword", "expr"]


@functools.lru_cache(maxsize=256)
def expr(code: str) -> cst.BaseExpression:
    """``code`` parsed as an expression (cached: libcst nodes are immutable,
    and a fix of a large cell asks for the same ``device`` thousands of times)."""
    return cst.parse_expression(code)


def dotted(name: str) -> cst.BaseExpression:
    """``a.b.c`` as a Name/Attribute chain."""
    parts = name.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for p in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(p))
    return node


def _wrap(node: cst.BaseExpression) -> cst.BaseExpression:
    """Parenthesize operands that bind looser than attribute access."""
    if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison,
                         cst.IfExp, cst.Lambda, cst.Await, cst.NamedExpr)) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if isinstance(node, (cst.Integer, cst.Float)) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


def with_method(node: cst.BaseExpression, method: str) -> cst.Call:
    """``node.method()``"""
    return cst.Call(func=cst.Attribute(value=_wrap(node), attr=cst.Name(method)))


method_call = with_method


def rename_method(call: cst.Call, new: str) -> cst.Call:
    assert isinstance(call.func, cst.Attribute)
    return call.with_changes(func=call.func.with_changes(attr=cst.Name(new)))


def strip_inplace_call(call: cst.Call) -> cst.Call:
    """``x.add_(y)`` -> ``x.add(y)``"""
    assert isinstance(call.func, cst.Attribute)
    return rename_method(call, call.func.attr.value[:-1])


def add_keyword(call: cst.Call, name: str, value: str) -> cst.Call:
    args = list(call.args)
    if args:
        last = args[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT or isinstance(last.comma, cst.MaybeSentinel):
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(cst.Arg(value=expr(value), keyword=cst.Name(name),
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace(""))))
    return call.with_changes(args=args)
