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
             "torch.cuda.reset_peak_memory_stats", "torch.cuda.reset_max_memory_allocated",
             "torch.cuda.reset_accumulated_memory_stats"}
#: Seeding calls with an exact device-agnostic replacement.
SEEDS = {"torch.cuda.manual_seed", "torch.cuda.manual_seed_all"}


class TorchCudaApi(Rule):
    """What it does: finds uses of ``torch.cuda.*``.

    Why: the ``torch.cuda`` module has no meaning on Ascend (MSAdapter guide
    4.3.2: "torch.cuda operations have no effect on Ascend, delete them").
    msnb implements the common ``torch.cuda`` calls (``is_available``,
    ``manual_seed_all``, ``empty_cache``, ``synchronize``...) on the
    MindSpore device; those run unchanged and are not reported.  A name the
    support registry lacks raises when the cell runs: error.

    Fix safety: safe.  ``torch.cuda.manual_seed(_all)(s)`` becomes
    ``torch.manual_seed(s)`` (which seeds every device); memory / sync calls
    used as statements (``empty_cache``, ``synchronize``...) are removed,
    since they only affect CUDA.  ``torch.cuda.amp`` is MSN402's.
    """

    CODE = "MSN102"
    NAME = "torch-cuda-api"
    CATEGORY = Category.CUDA
    MESSAGE = "`torch.cuda` API not implemented by msnb"
    WHY = ("The torch.cuda module drives NVIDIA GPUs; msnb implements the device-independent part of it "
           "and this name is not in that part, so the cell fails with AttributeError.")
    SUGGESTION = "Remove the call, or use the device-agnostic API (`torch.manual_seed`, `device`)."
    SEVERITY_PYNATIVE = Severity.ERROR
    SEVERITY_GRAPH = Severity.ERROR
    FIX_SAFETY = "Safe: seeding becomes `torch.manual_seed`; CUDA-only memory/sync statements are removed."
    VALID = [
        Valid("import torch\ntorch.manual_seed(0)\n"),
        Valid("import torch\nx = torch.ones(3)\n"),
        Valid("import torch\nwith torch.cuda.amp.autocast():\n    pass\n"),
        Valid("import torch\nif torch.cuda.is_available():\n    pass\ntorch.cuda.manual_seed_all(0)\n"
              "torch.cuda.empty_cache()\n"),
    ]
    INVALID = [
        Invalid("import torch\nx = 1\ntorch.cuda.ipc_collect()\n", line=3, col=1, severity=Severity.ERROR,
                fix="import torch\nx = 1\n"),
        Invalid("import torch\nfor i in range(3):\n    torch.cuda.reset_max_memory_allocated()\n", line=3, col=5,
                severity=Severity.ERROR, fix="import torch\nfor i in range(3):\n    pass\n"),
        Invalid("import torch\ng = torch.cuda.CUDAGraph()\n", line=2, col=5,
                severity=Severity.ERROR),
    ]

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if not topmost_attribute(node, ctx):
            return
        q = ctx.infer.qualname(node)
        if q is None or not q.startswith("torch.cuda.") or q.startswith("torch.cuda.amp"):
            return
        if q in MAPPED or q in ctx.registry:
            return  # runs unchanged on msnb
        call = ctx.parent if isinstance(ctx.parent, ast.Call) and ctx.parent.func is node else None
        edit = None
        torch = ctx.infer.local_alias("torch")
        if call is not None and q in SEEDS and torch is not None and "." not in torch:
            edit = ctx.edit(call, cst.Call, lambda n, t=torch: n.with_changes(func=dotted(f"{t}.manual_seed")))
        elif call is not None and q in REMOVABLE and len(ctx.parents) > 1 and isinstance(ctx.parents[-2], ast.Expr):
            edit = ctx.removal_edit(ctx.parents[-2], cst.Expr)
        ctx.report(call or node, message=f"`{q}` is not implemented by msnb", edit=edit)
