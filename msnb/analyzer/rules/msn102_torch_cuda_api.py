"""MSN102: the ``torch.cuda`` module."""

from __future__ import annotations

import ast

import libcst as cst

from ..finding import Category, Severity
from ._cst import dotted
from ._device import topmost_attribute
from .base import Invalid, Rule, Valid

__all__ = ["TorchCudaApi"]

#: torch.cuda functions msnb maps onto MindSpore (see msnb/adapter).
MAPPED = {"torch.cuda.is_available"}
#: Statements with no observable effect off CUDA: removing them is safe.
REMOVABLE = {"torch.cuda.empty_cache", "torch.cuda.synchronize", "torch.cuda.ipc_collect",
             "torch.cuda.reset_peak_memory_stats", "torch.cuda.reset_max_memory_allocated"}
#: Seeding calls with an exact device-agnostic replacement.
SEEDS = {"torch.cuda.manual_seed", "torch.cuda.manual_seed_all"}


class TorchCudaApi(Rule):
    """What it does: finds uses of ``torch.cuda.*``.

    Why: the ``torch.cuda`` module has no meaning on Ascend (MSAdapter guide
    4.3.2: "torch.cuda operations have no effect on Ascend, delete them").
    msnb maps ``torch.cuda.is_available()`` (info); every other name is a
    warning unless the support registry lists it.

    Fix safety: safe.  ``torch.cuda.manual_seed(_all)(s)`` becomes
    ``torch.manual_seed(s)`` (which seeds every device); memory / sync calls
    used as statements (``empty_cache``, ``synchronize``...) are removed,
    since they only affect CUDA.  ``torch.cuda.amp`` is MSN402's.
    """

    CODE = "MSN102"
    NAME = "torch-cuda-api"
    CATEGORY = Category.CUDA
    MESSAGE = "`torch.cuda` API has no equivalent on Ascend"
    WHY = ("The torch.cuda module drives NVIDIA GPUs; on MindSpore the device is set once for the "
           "process, so these calls either fail or do nothing.")
    SUGGESTION = "Remove the call, or use the device-agnostic API (`torch.manual_seed`, `device`)."
    SEVERITY_PYNATIVE = Severity.WARNING
    SEVERITY_GRAPH = Severity.WARNING
    FIX_SAFETY = "Safe: seeding becomes `torch.manual_seed`; CUDA-only memory/sync statements are removed."
    VALID = [
        Valid("import torch\ntorch.manual_seed(0)\n"),
        Valid("import torch\nx = torch.ones(3)\n"),
        Valid("import torch\nwith torch.cuda.amp.autocast():\n    pass\n"),
    ]
    INVALID = [
        Invalid("import torch\nif torch.cuda.is_available():\n    pass\n", line=2, col=4, severity=Severity.INFO),
        Invalid("import torch as t\nt.cuda.manual_seed_all(42)\n", line=2, col=1,
                fix="import torch as t\nt.manual_seed(42)\n"),
        Invalid("import torch\nx = 1\ntorch.cuda.empty_cache()\n", line=3, col=1, fix="import torch\nx = 1\n"),
        Invalid("import torch\nfor i in range(3):\n    torch.cuda.synchronize()\n", line=3, col=5,
                fix="import torch\nfor i in range(3):\n    pass\n"),
        Invalid("import torch\nn = torch.cuda.device_count()\n", line=2, col=5),
    ]

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if not topmost_attribute(node, ctx):
            return
        q = ctx.infer.qualname(node)
        if q is None or not q.startswith("torch.cuda.") or q.startswith("torch.cuda.amp"):
            return
        if q in MAPPED or q in ctx.registry:
            ctx.report(node, severity=Severity.INFO,
                       message=f"`{q}` is mapped by msnb to the MindSpore device",
                       suggestion="No change needed; prefer a single `device` variable for the rest of the code.")
            return
        call = ctx.parent if isinstance(ctx.parent, ast.Call) and ctx.parent.func is node else None
        edit = None
        torch = ctx.infer.local_alias("torch")
        if call is not None and q in SEEDS and torch is not None and "." not in torch:
            edit = ctx.edit(call, cst.Call, lambda n, t=torch: n.with_changes(func=dotted(f"{t}.manual_seed")))
        elif call is not None and q in REMOVABLE and len(ctx.parents) > 1 and isinstance(ctx.parents[-2], ast.Expr):
            edit = ctx.removal_edit(ctx.parents[-2], cst.Expr)
        ctx.report(call or node, message=f"`{q}` has no equivalent on Ascend", edit=edit)
