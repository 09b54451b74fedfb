"""MSN612: saving or loading a whole pickled model."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ..inference import Kind
from .base import Invalid, Rule, Valid

__all__ = ["PickledModel"]

_MODULE_USES = frozenset({"eval", "train", "to", "cuda", "cpu", "parameters", "forward", "state_dict",
                          "named_parameters", "modules", "children", "half", "float"})


class PickledModel(Rule):
    """What it does: finds ``torch.save(model, path)`` where ``model`` is an
    ``nn.Module`` (not its ``state_dict()``), and ``m = torch.load(path)``
    where ``m`` is then used as a model (called, ``.eval()``, ``.to()``,
    ``.parameters()``...).

    Why: a whole-model pickle stores the class by import path and its
    PyTorch internals; msnb cannot rebuild a PyTorch module from it, and a
    module pickled by msnb cannot be read by PyTorch (MSAdapter guide 4.4).
    Loading such a file fails on msnb (error); saving one produces a file
    only msnb can read (warning).

    Fix safety: no automatic fix; saving a state dict needs matching changes
    on the loading side (instantiate the model, then
    ``model.load_state_dict(torch.load(path, weights_only=True))``).
    """

    CODE = "MSN612"
    NAME = "pickled-model"
    CATEGORY = Category.CHECKPOINT
    MESSAGE = "whole model pickled instead of its state dict"
    WHY = "msnb can save and load state dicts; pickled PyTorch module objects cannot be rebuilt on MindSpore."
    SUGGESTION = ("Save `model.state_dict()`; to load, build the model and call "
                  "`model.load_state_dict(torch.load(path, weights_only=True))`.")
    SEVERITY_PYNATIVE = Severity.ERROR
    SEVERITY_GRAPH = Severity.ERROR
    VALID = [
        Valid("import torch\nnet = torch.nn.Linear(2, 2)\ntorch.save(net.state_dict(), 'w.pt')\n"
              "net.load_state_dict(torch.load('w.pt', weights_only=True))\n"),
    ]
    INVALID = [
        Invalid("import torch\nnet = torch.nn.Linear(2, 2)\ntorch.save(net, 'net.pt')\n", line=3, col=12,
                severity=Severity.INFO),
        Invalid("import torch\nmodel = torch.load('net.pt')\nmodel.eval()\n", line=2, col=9, severity=Severity.ERROR,
                context=("import torch\ntorch.save(torch.nn.Linear(2, 2), 'net.pt')\n",)),
    ]

    def __init__(self) -> None:
        self.loaded: dict[str, ast.Call] = {}
        self.reported: set[int] = set()

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        v = node.value
        if isinstance(v, ast.Call) and ctx.infer.qualname(v.func) == "torch.load":
            for t in node.targets:
                if isinstance(t, ast.Name):
                    self.loaded[t.id] = v

    def visit_Call(self, node: ast.Call, ctx) -> None:
        q = ctx.infer.qualname(node.func)
        if q == "torch.save" and node.args and ctx.infer.kind(node.args[0]) in (Kind.MODULE,):
            ctx.report(node.args[0], severity=Severity.INFO,
                       message=f"`torch.save` of the module `{ctx.segment(node.args[0])}` pickles the whole model")
            return
        func = node.func
        name = None
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute) and func.attr in _MODULE_USES:
            if isinstance(func.value, ast.Name):
                name = func.value.id
            elif isinstance(func.value, ast.Call) and ctx.infer.qualname(func.value.func) == "torch.load":
                self._report_load(func.value, ctx)
                return
        if name is not None and name in self.loaded:
            self._report_load(self.loaded[name], ctx)

    def _report_load(self, load: ast.Call, ctx) -> None:
        if id(load) in self.reported:
            return
        self.reported.add(id(load))
        ctx.report(load, message="`torch.load` result is used as a model: a pickled whole model cannot be loaded on msnb")
