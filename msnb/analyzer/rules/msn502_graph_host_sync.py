"""MSN502: ``.item()``, ``print`` and host conversions inside compiled code."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._graph import FALLBACK, FALLBACK_WHY, JIT, JIT_WHY, RECORDED, RECORDED_ONLY, formats_tensor, in_print_call
from .base import Invalid, Rule, Valid

__all__ = ["GraphHostSync"]

#: Tensor methods that read the value on the host, per compiler.  In msnb
#: ``.cpu()`` returns the tensor itself and ``list(t)`` unbinds it with a
#: kernel, so neither reads anything in a recorded forward.
_HOST_METHODS = {JIT: frozenset({"item", "tolist", "numpy", "cpu"}),
                 RECORDED: frozenset({"item", "tolist", "numpy"})}
_HOST_BUILTINS = {JIT: frozenset({"float", "int", "bool", "list"}),
                  RECORDED: frozenset({"float", "int", "bool", "complex", "str", "repr", "format"})}


class GraphHostSync(Rule):
    """What it does: finds host reads of a tensor -- ``.item()`` /
    ``.tolist()`` / ``.numpy()``, ``float(t)`` / ``int(t)`` / ``bool(t)`` /
    ``str(t)``, an f-string that formats a tensor -- and ``print(...)``
    inside ``forward`` of an ``nn.Module`` or autograd Function, or inside a
    ``@mindspore.jit`` function.

    Why: msnb's graph mode (``--mode graph``) records a module call while it
    runs and replays the compiled graph afterwards; a replay cannot hand a
    fresh value to Python.  msnb detects the read and runs that module in
    PyNative (one ``msnb graph: ... runs in PyNative`` line naming the cell
    line; ``%msnb explain`` lists it).  Results do not change and the layers
    it calls are still compiled, so this is a warning about speed, not an
    error.  A ``print`` of values that are not tensors (``x.shape``, a
    string) reads nothing, but it is Python that runs only on the calls msnb
    records, so it prints for the first batches and then stops; it is
    reported with that message.  In a ``@mindspore.jit`` function,
    MindSpore's compiler has no values while it builds the graph: a host
    conversion or ``print`` forces JIT Fallback (``.cpu()`` and
    ``list(t)`` too, which are free in a recorded forward).  PyNative: not
    reported.

    Fix safety: no automatic fix; return the tensor and convert or print it
    outside ``forward`` (in the training loop), or keep the read if that
    module is cheap.
    """

    CODE = "MSN502"
    NAME = "graph-host-sync"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "host read of a tensor or print inside forward"
    WHY = "Reading a tensor value on the host (`.item()`, `bool(t)`, printing it): " + FALLBACK_WHY
    SUGGESTION = "Return the tensor and call `.item()` / print it outside `forward`, e.g. in the training loop."
    PRINT_WHY = ("msnb's graph mode runs `forward`'s Python only while it records the graph (the first calls for "
                 "each input shape) and replays the compiled graph afterwards, so the print stops after a few calls.")
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        return x.sum()\n"
              "import torch\nnet = Net()\nprint(net(torch.ones(2)).item())\n", mode="graph"),
        # .cpu() returns the tensor itself in msnb: nothing is read
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        return x.cpu()\n",
              mode="graph"),
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        s = x.sum().item()\n        return x * s\n", mode="pynative"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        s = x.sum().item()\n        return x * s\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=4, col=13, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        y = x.mean()\n        print(f'mean {y:.3f}')\n        return x\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=5, col=9,
                mode="graph"),
        # not a host read, but printed only while msnb records the graph
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        print(x.shape)\n        return x\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=4, col=9, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        self.log(f'{x.sum()}')\n        return x\n    def log(self, msg):\n        self.msg = msg\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=4, col=18, mode="graph"),
        Invalid("import mindspore as ms\nimport torch\n@ms.jit\ndef step(x: torch.Tensor):\n"
                "    return float(x)\ny = step(torch.ones(()))\n", line=5, col=12, mode="graph",
                severity=Severity.INFO),
        Invalid("import mindspore as ms\nimport torch\n@ms.jit\ndef step(x: torch.Tensor):\n"
                "    return x.cpu()\ny = step(torch.ones(2))\n", line=5, col=12, mode="graph",
                severity=Severity.ERROR),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        kind = ctx.graph_code_kind()
        if kind is None:
            return
        infer = ctx.infer
        func = node.func
        if isinstance(func, ast.Name) and infer.lookup(func.id) is None and infer.qualname(func) is None:
            if func.id == "print":
                self._print(node, ctx, kind)
            elif func.id in _HOST_BUILTINS[kind] and node.args and infer.is_tensor(node.args[0]):
                self._host(node, ctx, kind, f"`{func.id}()` of a tensor")
        elif (isinstance(func, ast.Attribute) and func.attr in _HOST_METHODS[kind]
              and infer.is_tensor(func.value)):
            self._host(node, ctx, kind, f"`.{func.attr}()`")

    def visit_JoinedStr(self, node: ast.JoinedStr, ctx) -> None:
        kind = ctx.graph_code_kind()
        if kind is None or kind == JIT or in_print_call(ctx):
            return
        if formats_tensor(ctx.infer, node):
            self._host(node, ctx, kind, "formatting a tensor in an f-string")

    def _host(self, node: ast.AST, ctx, kind: str, what: str) -> None:
        if kind == JIT:
            # inside ms.jit the argument is a MindSpore tensor: `.cpu()` does not exist there
            # (the cell fails); other reads go through MindSpore's JIT Fallback (advice)
            fails = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cpu"
            ctx.report(node, severity=Severity.ERROR if fails else Severity.INFO,
                       message=f"{what} inside a `@ms.jit` function",
                       why="Converting a tensor to a Python value needs concrete values. " + JIT_WHY,
                       suggestion="Return the tensor and convert it outside the compiled function.")
        else:
            ctx.report(node, message=f"{what} reads a tensor value on the host: {FALLBACK}")

    def _print(self, node: ast.Call, ctx, kind: str) -> None:
        if kind == JIT:
            ctx.report(node, severity=Severity.INFO, message="`print` inside a `@ms.jit` function",
                       why="Printing inside a compiled function needs concrete values. " + JIT_WHY,
                       suggestion="Print outside the compiled function, or use `mindspore.ops.Print`.")
            return
        shown = [formats_tensor(ctx.infer, a) for a in node.args]
        if any(shown):
            ctx.report(node, message=f"printing a tensor reads its value on the host: {FALLBACK}")
        elif all(s is False for s in shown):
            ctx.report(node, message=f"`print` inside forward: {RECORDED_ONLY}", why=self.PRINT_WHY,
                       suggestion="Print in the training loop, or run this cell in PyNative while debugging.")
        else:
            ctx.report(node, message=("`print` inside forward: printing a tensor makes this module run in PyNative "
                                      "in graph mode; anything printed appears only on the calls msnb records"),
                       why=self.PRINT_WHY + " Printing a tensor also reads it on the host: " + FALLBACK_WHY,
                       suggestion=self.SUGGESTION)
