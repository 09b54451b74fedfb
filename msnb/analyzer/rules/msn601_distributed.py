"""MSN601: PyTorch distributed training APIs."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._device import topmost_attribute
from .base import Invalid, Rule, Valid

__all__ = ["Distributed", "MSRUN"]

MSRUN = ("launch the script with `msnb launch --nproc-per-node N train.py` (MindSpore's `msrun` with torchrun's "
         "environment); on several machines see docs/distributed.md")

_WRAPPERS = {"torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel",
             "torch.nn.parallel.DataParallel", "torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"}


def _registered_class(q: str, registry) -> str | None:
    """The registered class ``q`` reads an attribute of (``torch.distributed.ReduceOp`` for
    ``torch.distributed.ReduceOp.SUM``): PyTorch's classes are CamelCase, its modules are not."""
    parts = q.split(".")
    for n in range(len(parts) - 1, 2, -1):
        prefix = ".".join(parts[:n])
        if parts[n - 1][:1].isupper() and prefix in registry:
            return prefix
    return None


_NAMESPACES: list = [None, frozenset()]  # [the registry they were read from, its namespaces]


def _is_namespace(q: str, registry) -> bool:
    """``torch.distributed.rpc`` itself (``import torch.distributed.rpc as rpc``): a module msnb has
    when the registry holds names below it; what is used from it is checked name by name."""
    if _NAMESPACES[0] is not registry:  # one registry at a time (the support list, or a test's own)
        _NAMESPACES[:] = [registry, frozenset(n.rsplit(".", i)[0] for n in registry for i in range(1, n.count(".")))]
    return q in _NAMESPACES[1]


class Distributed(Rule):
    """What it does: finds ``torch.distributed.*``, ``DistributedDataParallel``
    / ``DataParallel`` and ``torch.multiprocessing.spawn``.

    Why: msnb maps ``torch.distributed`` and DDP onto MindSpore's own
    communication (any backend name: gloo, nccl, hccl), run by one process
    per device that ``msnb launch`` starts with ``msrun``; in a notebook cell
    they run as a world of one process (info: how to launch for real).
    ``torch.multiprocessing.spawn`` starts fresh msnb processes (info: its
    function must be picklable).  Names msnb does not implement
    (``torch.distributed.pipelining``, ``torch.distributed.elastic``) make the cell fail when it reaches them
    (error).

    Fix safety: no automatic fix; the training script has to be launched
    differently.
    """

    CODE = "MSN601"
    NAME = "distributed"
    CATEGORY = Category.DISTRIBUTED
    MESSAGE = "PyTorch distributed API"
    WHY = ("msnb runs distributed training as one process per device started by `msnb launch` (MindSpore's "
           "`msrun`), communicating through mindspore.communication (HCCL on Ascend).")
    SUGGESTION = "Move training into a script and " + MSRUN + "."
    SEVERITY_PYNATIVE = Severity.ERROR
    SEVERITY_GRAPH = Severity.ERROR
    VALID = [Valid("from torch.utils.data import DataLoader\nloader = DataLoader([1, 2], batch_size=1)\n")]
    INVALID = [
        Invalid("import torch.distributed as dist\nprint(dist.is_available())\n", line=2, col=7,
                severity=Severity.INFO),
        Invalid("import torch.distributed as dist\nop = dist.ReduceOp.SUM\n", line=2, col=6,
                severity=Severity.INFO),
        Invalid("import torch.distributed.rpc as rpc\nprint(rpc)\n", line=2, col=7, severity=Severity.INFO),
        Invalid("import torch.distributed as dist\nstage = dist.pipelining.pipeline(None, 2)\n", line=2,
                col=9, severity=Severity.ERROR),
    ]

    def _check(self, node: ast.AST, ctx) -> None:
        q = ctx.infer.qualname(node)
        if q is None or not (q.startswith("torch.distributed.") or q in _WRAPPERS):
            return
        q = _registered_class(q, ctx.registry) or q
        call = ctx.parent if isinstance(ctx.parent, ast.Call) and ctx.parent.func is node else None
        target = call or node
        if q in ctx.registry and q.startswith("torch.multiprocessing."):
            ctx.report(target, severity=Severity.INFO,
                       message=f"`{q}` starts fresh msnb processes (as the 'spawn' start method does): the "
                               "function and its arguments must be picklable (defined at a module's top level)")
            return
        if q in ctx.registry or _is_namespace(q, ctx.registry):
            ctx.report(target, severity=Severity.INFO,
                       message=f"`{q}` runs on mindspore.communication: launch the script with `msnb launch`")
            return
        ctx.report(target, message=f"`{q}` is not implemented by msnb: the cell fails when it gets here")

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if topmost_attribute(node, ctx):
            self._check(node, ctx)

    def visit_Name(self, node: ast.Name, ctx) -> None:
        if isinstance(node.ctx, ast.Load) and ctx.infer.qualname(node) not in (None, node.id):
            self._check(node, ctx)
