"""MSN103: CUDA device literals (``"cuda"``, ``"cuda:0"``, ``.to(0)``)."""

from __future__ import annotations

import ast
import re

import libcst as cst

from ..finding import Category, Severity
from ._cst import expr
from ..fixes import Edit
from ._device import device_definition, device_expression, is_cuda_guarded
from .base import Invalid, Rule, Valid

__all__ = ["CudaDeviceLiteral"]

_CUDA = re.compile(r"^cuda(:\d+)?$")
_DEVICE_KEYWORDS = {"device", "map_location"}


class CudaDeviceLiteral(Rule):
    """What it does: finds ``"cuda"`` / ``"cuda:N"`` used as a device
    (``.to("cuda")``, ``device="cuda"``, ``torch.device("cuda")``,
    ``map_location="cuda"``) and integer devices (``.to(0)``).

    Why: msnb maps the string ``"cuda"`` to MindSpore's device (info), but an
    integer device is CUDA device N in PyTorch and has no such mapping
    (warning).  Strings already guarded by ``torch.cuda.is_available()`` are
    device-agnostic and not reported.

    Fix safety: safe.  The literal becomes ``device`` when the cell defines it
    (except in the statement defining it), otherwise
    ``"cuda" if torch.cuda.is_available() else "cpu"``, which msnb resolves to
    the same device.
    """

    CODE = "MSN103"
    NAME = "cuda-device-literal"
    CATEGORY = Category.CUDA
    MESSAGE = "hard-coded CUDA device; msnb maps \"cuda\" to the current device"
    WHY = ("A literal \"cuda\" device only exists on NVIDIA machines; msnb translates it, "
           "but the code stays non-portable.")
    SUGGESTION = 'Pick the device once: `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`.'
    SEVERITY_PYNATIVE = Severity.INFO
    SEVERITY_GRAPH = Severity.INFO
    FIX_SAFETY = "Safe: the replacement selects the same device on msnb."
    VALID = [
        Valid('import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'),
        Valid('import torch\nx = torch.ones(2).to("cpu")\n'),
        Valid('name = "cuda"\n'),
    ]
    INVALID = [
        Invalid('import torch\ndevice = torch.device("cuda")\n', line=2, col=23, severity=Severity.INFO,
                fix='import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'),
        Invalid('import torch\ndevice = torch.device("cpu")\nx = torch.ones(2).to("cuda:0")\n', line=3, col=22,
                severity=Severity.INFO, fix='import torch\ndevice = torch.device("cpu")\nx = torch.ones(2).to(device)\n'),
        Invalid('import torch\nx = torch.zeros(3, device="cuda")\n', line=2, col=27, severity=Severity.INFO,
                fix='import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
                    'x = torch.zeros(3, device=device)\n'),
        Invalid("import torch\nx = torch.ones(2).to(0)\n", line=2, col=22, severity=Severity.INFO,
                fix='import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
                    'x = torch.ones(2).to(device)\n'),
    ]

    def visit_Constant(self, node: ast.Constant, ctx) -> None:
        value = node.value
        if isinstance(value, str):
            if not _CUDA.match(value) or not _in_device_position(node, ctx) or is_cuda_guarded(ctx):
                return
            severity = Severity.INFO
            message = f'hard-coded device "{value}"; msnb maps it to the current device'
            node_type = cst.SimpleString
        elif type(value) is int and _is_to_argument(node, ctx):
            severity = Severity.INFO
            message = f"integer device {value} means CUDA device {value} in PyTorch; msnb maps it to the current device"
            node_type = cst.Integer
        else:
            return
        in_device_call = _inside_torch_device(ctx)
        dev = device_expression(ctx, prefer_name=not in_device_call)
        edit = None
        if dev is not None:
            edit = ctx.edit(node, node_type, lambda n, d=dev: expr(d))
            edit = Edit(edit.node_type, edit.key, edit.transform, device_definition(ctx, dev))
        ctx.report(node, severity=severity, message=message, edit=edit)


def _is_to_argument(node: ast.AST, ctx) -> bool:
    p = ctx.parent
    if isinstance(p, ast.Call) and p.args and p.args[0] is node:
        return isinstance(p.func, ast.Attribute) and p.func.attr == "to" and ctx.infer.qualname(p.func) is None
    if isinstance(p, ast.keyword) and p.arg == "device" and len(ctx.parents) > 1:
        call = ctx.parents[-2]
        return isinstance(call.func, ast.Attribute) and call.func.attr == "to"
    return False


def _inside_torch_device(ctx) -> bool:
    p = ctx.parent
    return isinstance(p, ast.Call) and ctx.infer.qualname(p.func) == "torch.device"


def _in_device_position(node: ast.AST, ctx) -> bool:
    p = ctx.parent
    if isinstance(p, ast.keyword):
        return p.arg in _DEVICE_KEYWORDS
    if isinstance(p, ast.Call) and p.args and p.args[0] is node:
        if _inside_torch_device(ctx):
            return True
        return isinstance(p.func, ast.Attribute) and p.func.attr == "to" and ctx.infer.qualname(p.func) is None
    return False
