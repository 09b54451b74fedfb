"""MSN101: ``.cuda()`` on tensors and modules."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._cst import expr
from ..fixes import Edit
from ._device import device_definition, device_expression
from .base import Invalid, Rule, Valid

__all__ = ["CudaCalls"]


class CudaCalls(Rule):
    """What it does: finds ``x.cuda()`` / ``model.cuda()``.

    Why: there is no CUDA device on Ascend.  msnb maps ``.cuda()`` to the
    device MindSpore runs on, so the cell works; the note is there because
    the code would still be tied to CUDA elsewhere.

    Fix safety: safe.  ``.cuda()`` becomes ``.to(device)`` when the cell
    (or an earlier one) defines ``device``, else
    ``.to("cuda" if torch.cuda.is_available() else "cpu")``; both select the
    same device ``.cuda()`` does on msnb.  Calls with a device index are not
    rewritten (the index has no device-agnostic equivalent).
    """

    CODE = "MSN101"
    NAME = "cuda-call"
    CATEGORY = Category.CUDA
    MESSAGE = "`.cuda()` ties the code to CUDA; msnb maps it to the current device"
    WHY = ("There is no CUDA on Ascend; msnb moves the tensor to MindSpore's device instead. "
           "Device-agnostic code runs unchanged on CUDA, CPU and Ascend.")
    SUGGESTION = "Use `.to(device)` with `device` chosen once, e.g. `torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")`."
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe: `.to(device)` selects the device `.cuda()` maps to."
    VALID = [
        Valid("import torch\ndevice = torch.device('cpu')\nx = torch.ones(2).to(device)\n"),
        Valid("import torch\nmodel = torch.nn.Linear(2, 2)\nmodel.to('cpu')\n"),
        Valid("import torch\nok = torch.cuda.is_available\n"),
    ]
    INVALID = [
        Invalid("import torch\nx = torch.ones(2).cuda()\n", line=2, col=5, severity=Severity.INFO,
                fix='import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
                    'x = torch.ones(2).to(device)\n'),
        Invalid("import torch\ndevice = torch.device('cpu')\nx = torch.ones(2).cuda(non_blocking=True)\n",
                line=3, col=5, severity=Severity.INFO,
                fix="import torch\ndevice = torch.device('cpu')\nx = torch.ones(2).to(device, non_blocking=True)\n"),
        Invalid("import torch\nx = torch.ones(2).cuda(1)\n", line=2, col=5, severity=Severity.INFO, fix=None),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "cuda"):
            return
        if ctx.infer.qualname(func) is not None:  # torch.cuda(...) is not a method call
            return
        edit = None
        if not node.args and all(k.arg == "non_blocking" for k in node.keywords):
            dev = device_expression(ctx)
            if dev is not None:
                edit = ctx.edit(node, cst.Call, lambda n, dev=dev: _to_device(n, dev))
                edit = Edit(edit.node_type, edit.key, edit.transform, device_definition(ctx, dev))
        ctx.report(node, edit=edit)


def _to_device(call: cst.Call, dev: str) -> cst.Call:
    first = cst.Arg(value=expr(dev))
    if call.args:
        first = first.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(func=call.func.with_changes(attr=cst.Name("to")), args=[first, *call.args])
