"""MSN402: names PyTorch deprecated or removed."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._cst import dotted, with_method
from ._device import topmost_attribute
from .base import Invalid, Rule, Valid

__all__ = ["DeprecatedApi", "DEPRECATED"]

#: deprecated name -> (exact replacement or None, note).  A replacement is
#: only given where PyTorch documents it as a drop-in (same arguments, same
#: result); otherwise the note says what to use.
DEPRECATED: dict[str, tuple[str | None, str]] = {
    "torch.autograd.Variable": (None, "Variable is a no-op since PyTorch 0.4; use the tensor itself "
                                      "(`x.requires_grad_()` for requires_grad=True)"),
    "torch.nn.functional.sigmoid": ("torch.sigmoid", "use torch.sigmoid"),
    "torch.nn.functional.tanh": ("torch.tanh", "use torch.tanh"),
    "torch.nn.functional.upsample": ("torch.nn.functional.interpolate", "use F.interpolate"),
    "torch.nn.functional.upsample_bilinear": (None, "use F.interpolate(..., mode='bilinear', align_corners=True)"),
    "torch.nn.functional.upsample_nearest": (None, "use F.interpolate(..., mode='nearest')"),
    "torch.nn.utils.clip_grad_norm": ("torch.nn.utils.clip_grad_norm_", "use clip_grad_norm_"),
    "torch.ger": ("torch.outer", "use torch.outer"),
    "torch.range": (None, "use torch.arange (note: arange excludes the end point)"),
    "torch.chain_matmul": (None, "use torch.linalg.multi_dot([...])"),
    "torch.symeig": (None, "use torch.linalg.eigh"),
    "torch.eig": (None, "use torch.linalg.eig"),
    "torch.solve": (None, "use torch.linalg.solve (argument order differs)"),
    "torch.lstsq": (None, "use torch.linalg.lstsq (argument order differs)"),
    "torch.matrix_rank": (None, "use torch.linalg.matrix_rank"),
    "torch.cholesky": (None, "use torch.linalg.cholesky"),
    "torch.qr": (None, "use torch.linalg.qr"),
    "torch.lu": (None, "use torch.linalg.lu_factor"),
    "torch.cuda.amp.autocast": (None, "use torch.amp.autocast('cuda', ...)"),
    "torch.cuda.amp.GradScaler": (None, "use torch.amp.GradScaler('cuda', ...)"),
    "torch.testing.assert_allclose": (None, "use torch.testing.assert_close"),
    "torch.nn.init.normal": ("torch.nn.init.normal_", "use the in-place init functions (trailing underscore)"),
    "torch.nn.init.uniform": ("torch.nn.init.uniform_", "use the in-place init functions (trailing underscore)"),
    "torch.nn.init.constant": ("torch.nn.init.constant_", "use the in-place init functions (trailing underscore)"),
    "torch.nn.init.xavier_uniform": ("torch.nn.init.xavier_uniform_", "use xavier_uniform_"),
    "torch.nn.init.xavier_normal": ("torch.nn.init.xavier_normal_", "use xavier_normal_"),
    "torch.nn.init.kaiming_uniform": ("torch.nn.init.kaiming_uniform_", "use kaiming_uniform_"),
    "torch.nn.init.kaiming_normal": ("torch.nn.init.kaiming_normal_", "use kaiming_normal_"),
}


class DeprecatedApi(Rule):
    """What it does: finds names PyTorch deprecated or removed
    (``torch.autograd.Variable``, ``F.sigmoid``, ``torch.range``,
    ``torch.cuda.amp.autocast``...), with a table in this file.

    Why: the adapter follows current PyTorch and does not carry deprecated
    names (MSAdapter FAQ: "interfaces PyTorch has deprecated will not be
    supported"), so they fail on msnb.

    Fix safety: safe.  A name is only rewritten where PyTorch documents a
    drop-in replacement (``F.sigmoid`` -> ``torch.sigmoid``, ``torch.ger``
    -> ``torch.outer``...).  ``Variable(x)`` becomes ``x`` and
    ``Variable(x, requires_grad=True)`` becomes ``x.requires_grad_()``, which
    is what Variable has done since PyTorch 0.4.  Other cases get a note.
    """

    CODE = "MSN402"
    NAME = "deprecated-api"
    CATEGORY = Category.DEPRECATED_API
    MESSAGE = "deprecated PyTorch API"
    WHY = "The adapter implements current PyTorch only; deprecated names are not provided."
    SUGGESTION = "Use the current replacement."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe: only documented drop-in replacements are applied."
    VALID = [Valid("import torch\nx = torch.sigmoid(torch.ones(2))\n"),
             Valid("import torch\ny = torch.arange(3)\n")]
    INVALID = [
        Invalid("import torch\nfrom torch.autograd import Variable\nx = torch.ones(2)\nv = Variable(x)\n", line=4,
                col=5, fix="import torch\nfrom torch.autograd import Variable\nx = torch.ones(2)\nv = x\n", severity=Severity.INFO),
        Invalid("import torch\nx = torch.ones(2)\nv = torch.autograd.Variable(x, requires_grad=True)\n", line=3, col=5,
                fix="import torch\nx = torch.ones(2)\nv = x.requires_grad_()\n", severity=Severity.INFO),
        Invalid("import torch\nimport torch.nn.functional as F\ny = F.sigmoid(torch.ones(2))\n", line=3, col=5,
                fix="import torch\nimport torch.nn.functional as F\ny = torch.sigmoid(torch.ones(2))\n", severity=Severity.INFO),
        Invalid("import torch\nr = torch.range(0, 3)\n", line=2, col=5, fix=None, severity=Severity.INFO),
    ]

    def _check(self, node: ast.AST, ctx) -> None:
        q = ctx.infer.qualname(node)
        if q is None or q not in DEPRECATED:
            return
        replacement, note = DEPRECATED[q]
        call = ctx.parent if isinstance(ctx.parent, ast.Call) and ctx.parent.func is node else None
        edit = None
        torch = ctx.infer.local_alias("torch")
        if q == "torch.autograd.Variable" and call is not None:
            edit = _variable_edit(call, ctx)
        elif replacement is not None and torch is not None and "." not in torch:
            new = torch + replacement[len("torch"):]
            node_type = cst.Attribute if isinstance(node, ast.Attribute) else cst.Name
            edit = ctx.edit(node, node_type, lambda n, new=new: dotted(new))
        # msnb implements most deprecated names as PyTorch does (advice); one
        # it lacks fails when the cell runs (MSN401 leaves these names to us)
        missing = bool(ctx.registry) and q not in ctx.registry
        ctx.report(call or node, severity=Severity.ERROR if missing else None,
                   message=f"`{q}` is deprecated in PyTorch" + (" and not implemented by msnb" if missing else ""),
                   suggestion=note[0].upper() + note[1:] + ".", edit=edit)

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if topmost_attribute(node, ctx):
            self._check(node, ctx)

    def visit_Name(self, node: ast.Name, ctx) -> None:
        if isinstance(node.ctx, ast.Load):
            self._check(node, ctx)


def _variable_edit(call: ast.Call, ctx):
    if len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
        return None
    kw = {k.arg: k.value for k in call.keywords}
    if not kw:
        return ctx.edit(call, cst.Call, lambda n: n.args[0].value)
    rg = kw.get("requires_grad")
    if set(kw) == {"requires_grad"} and isinstance(rg, ast.Constant) and rg.value is True:
        return ctx.edit(call, cst.Call, lambda n: with_method(n.args[0].value, "requires_grad_"))
    return None
