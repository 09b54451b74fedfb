"""MSN301: tensors formatted with a format spec."""

from __future__ import annotations

import ast
import re
import string

import libcst as cst

from ..finding import Category, Severity
from ._cst import with_method
from .base import Invalid, Rule, Valid

__all__ = ["TensorFormatSpec", "CST_TYPE"]

#: ast expression type -> the libcst node type at the same source range.
CST_TYPE = {
    ast.Name: cst.Name, ast.Subscript: cst.Subscript, ast.Call: cst.Call, ast.Attribute: cst.Attribute,
    ast.BinOp: cst.BinaryOperation, ast.UnaryOp: cst.UnaryOperation,
}

_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")
_NUMERIC = set("diouxXeEfFgGc")


class TensorFormatSpec(Rule):
    """What it does: finds tensors formatted with a format spec:
    ``f"{loss:.4f}"``, ``"{:.6f}".format(loss)``, ``"%.2f" % acc``.

    Why: ``Tensor.__format__`` only accepts a spec for one-element tensors
    (it formats ``.item()``) and raises ``TypeError`` for larger ones.  msnb
    formats exactly as PyTorch does (``f"{t:.4f}"``, ``"{:.4f}".format(t)``
    and ``"%.4f" % t`` give PyTorch's text; the examples are run against
    PyTorch), so this is advice only, shown with ``%msnb analyze --all``:
    ``.item()`` says explicitly that a Python number is formatted.

    Fix safety: safe.  The tensor gets ``.item()``: a format spec on a
    tensor only works in PyTorch when the tensor has one element, and then
    PyTorch itself formats ``.item()``, so the output is identical.  Specs
    that format a whole array belong in NumPy (``.numpy()``), which is left
    to the user.
    """

    CODE = "MSN301"
    NAME = "tensor-format-spec"
    CATEGORY = Category.FORMAT_STRING
    MESSAGE = "tensor formatted with a format spec"
    WHY = ("A format spec like `:.4f` works on one-element tensors and raises TypeError on larger ones, "
           "in PyTorch and in msnb alike; `.item()` makes the one-element assumption explicit.")
    SUGGESTION = "Format the Python number: `f\"{loss.item():.4f}\"`."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe: PyTorch formats `.item()` in exactly these cases."
    VALID = [
        Valid("import torch\nloss = torch.ones(())\nprint(f'{loss.item():.4f}')\n"),
        Valid("import torch\nx = torch.ones(3)\nprint(f'{x}', '{}'.format(x), '%s' % x)\n"),
        Valid("lr = 0.1\nprint(f'{lr:.3f}', '{:.2f}'.format(lr), '%.1f' % lr)\n"),
    ]
    INVALID = [
        Invalid("import torch\nprobs = torch.rand(3)\nlabel = f\"{class_names[labels[i]]}: {probs[i]:.2f}\"\n",
                line=3, col=38, severity=Severity.INFO,
                context=("class_names = ['cat', 'dog', 'fox']\nlabels = [2, 0, 1]\ni = 1\n",),
                fix="import torch\nprobs = torch.rand(3)\nlabel = f\"{class_names[labels[i]]}: {probs[i].item():.2f}\"\n"),
        Invalid("import torch.nn as nn\ncriterion = nn.CrossEntropyLoss()\nloss = criterion(out, y)\n"
                "print(\"------>epoch:{}, loss:{:.6f}\".format(i, loss))\n", line=4, col=48, severity=Severity.INFO,
                context=("import torch\nout = torch.rand(2, 3)\ny = torch.tensor([0, 2])\ni = 0\n",),
                fix="import torch.nn as nn\ncriterion = nn.CrossEntropyLoss()\nloss = criterion(out, y)\n"
                    "print(\"------>epoch:{}, loss:{:.6f}\".format(i, loss.item()))\n"),
        Invalid("import torch\nacc = torch.tensor(0.5)\nmsg = 'acc %.2f%% (%d)' % (acc * 100, n)\n", line=3, col=28,
                severity=Severity.INFO, context=("n = 3\n",),
                fix="import torch\nacc = torch.tensor(0.5)\nmsg = 'acc %.2f%% (%d)' % ((acc * 100).item(), n)\n"),
        Invalid("print(f'{loss:.4f}')\n", line=1, col=10, severity=Severity.INFO, context=("import torch\nloss = torch.ones(())\n",),
                fix="print(f'{loss.item():.4f}')\n"),
    ]

    def _flag(self, value: ast.AST, ctx, how: str, written: str) -> None:
        """``written`` is the rewrite as the user would type it, with the
        real expression and spec (``{loss.item():.4f}``)."""
        if not ctx.infer.is_tensor(value):
            return
        node_type = CST_TYPE.get(type(value))
        edit = ctx.edit(value, node_type, lambda n: with_method(n, "item")) if node_type else None
        ctx.report(value, message=f"tensor `{ctx.segment(value)}` formatted with {how}",
                   suggestion=f"Format the Python number: `{written}`.", edit=edit)

    @staticmethod
    def _item(value: ast.AST, ctx) -> str:
        seg = ctx.segment(value)
        simple = isinstance(value, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))
        return f"{seg}.item()" if simple else f"({seg}).item()"

    def visit_FormattedValue(self, node: ast.FormattedValue, ctx) -> None:
        spec = node.format_spec
        if spec is None or (isinstance(spec, ast.JoinedStr) and not spec.values):
            return
        spec_text = "".join(v.value for v in spec.values if isinstance(v, ast.Constant)) \
            if isinstance(spec, ast.JoinedStr) else ""
        self._flag(node.value, ctx, "a format spec in an f-string",
                   "{" + self._item(node.value, ctx) + ":" + spec_text + "}")

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "format" and isinstance(func.value, ast.Constant)
                and isinstance(func.value.value, str)):
            return
        try:
            fields = list(string.Formatter().parse(func.value.value))
        except ValueError:
            return
        auto = 0
        kwargs = {k.arg: k.value for k in node.keywords if k.arg}
        for _, field, spec, _ in fields:
            if field is None:
                continue
            name = re.split(r"[.\[]", field, maxsplit=1)[0]
            simple = name == field
            if name == "":
                idx: int | str = auto
                auto += 1
            elif name.isdigit():
                idx = int(name)
            else:
                idx = name
            if not spec or not simple:
                continue
            if isinstance(idx, int):
                if idx < len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args[: idx + 1]):
                    arg = node.args[idx]
                    self._flag(arg, ctx, "a format spec in str.format",
                               f"{{:{spec}}}\".format({self._item(arg, ctx)})".join(['"', '']))
            elif idx in kwargs:
                self._flag(kwargs[idx], ctx, "a format spec in str.format",
                           f"{{{idx}:{spec}}}\".format({idx}={self._item(kwargs[idx], ctx)})".join(['"', '']))

    def visit_BinOp(self, node: ast.BinOp, ctx) -> None:
        if not (isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant)
                and isinstance(node.left.value, str)):
            return
        convs = [m for m in _PERCENT.finditer(node.left.value) if m.group(3) != "%"]
        if any(m.group(1) == "*" or m.group(2) == "*" for m in convs) or "%(" in node.left.value:
            return
        values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        if len(values) != len(convs):
            return
        for m, v in zip(convs, values):
            if m.group(3) in _NUMERIC:
                self._flag(v, ctx, f"`%{m.group(3)}` formatting", f"\"{m.group(0)}\" % {self._item(v, ctx)}")
