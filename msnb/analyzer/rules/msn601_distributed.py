"""MSN601: PyTorch distributed training APIs."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._device import topmost_attribute
from .base import Invalid, Rule, Valid

__all__ = ["Distributed", "MSRUN"]

MSRUN = ("launch the script with MindSpore's launcher: `msrun --worker_num=N --local_worker_num=N "
         "--master_port=PORT train.py`, call `mindspore.communication.init()` in it, and shard data with "
         "`DistributedSampler`")

_WRAPPERS = {"torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel",
             "torch.nn.parallel.DataParallel", "torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"}


class Distributed(Rule):
    """What it does: finds ``torch.distributed.*`` (notably
    ``init_process_group("nccl")``), ``DistributedDataParallel`` /
    ``DataParallel`` and ``torch.multiprocessing.spawn``.

    Why: NCCL exists only on NVIDIA GPUs, so ``init_process_group("nccl")``
    cannot work on Ascend (error).  MindSpore runs one process per device
    started by its own launcher, ``msrun``, and all-reduces gradients through
    ``mindspore.communication`` (HCCL on Ascend); spawning workers from a
    notebook cell and wrapping the model in DDP does not map onto that
    (warning).  Names the support registry lists are reported as info.

    Fix safety: no automatic fix; the training script has to be launched
    differently.
    """

    CODE = "MSN601"
    NAME = "distributed"
    CATEGORY = Category.DISTRIBUTED
    MESSAGE = "PyTorch distributed API"
    WHY = ("MindSpore runs data-parallel training as one process per device started by `msrun`, "
           "communicating with HCCL, not NCCL.")
    SUGGESTION = "Move training into a script and " + MSRUN + "."
    SEVERITY_PYNATIVE = Severity.ERROR
    SEVERITY_GRAPH = Severity.ERROR
    VALID = [Valid("from torch.utils.data import DataLoader\nloader = DataLoader([1, 2], batch_size=1)\n")]
    INVALID = [
        Invalid("import torch.distributed as dist\ndist.init_process_group('nccl')\n", line=2, col=1,
                severity=Severity.ERROR),
        Invalid("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(net)\n",
                line=3, col=9, severity=Severity.ERROR),
        Invalid("import torch.multiprocessing as mp\nmp.spawn(main, nprocs=2)\n", line=2, col=1,
                severity=Severity.ERROR),
    ]

    def _check(self, node: ast.AST, ctx) -> None:
        q = ctx.infer.qualname(node)
        if q is None or not (q.startswith("torch.distributed.") or q in _WRAPPERS):
            return
        call = ctx.parent if isinstance(ctx.parent, ast.Call) and ctx.parent.func is node else None
        target = call or node
        if q == "torch.distributed.init_process_group" and call is not None and _backend(call) == "nccl":
            ctx.report(target, severity=Severity.ERROR,
                       message="`init_process_group(\"nccl\")`: NCCL does not exist on Ascend")
            return
        if q in ctx.registry:
            ctx.report(target, severity=Severity.INFO, message=f"`{q}` is mapped by msnb onto mindspore.communication")
            return
        ctx.report(target, message=f"`{q}` is not implemented by msnb: the cell fails when it gets here")

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if topmost_attribute(node, ctx):
            self._check(node, ctx)

    def visit_Name(self, node: ast.Name, ctx) -> None:
        if isinstance(node.ctx, ast.Load) and ctx.infer.qualname(node) not in (None, node.id):
            self._check(node, ctx)


def _backend(call: ast.Call) -> str | None:
    arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "backend"), None)
    return arg.value.lower() if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
