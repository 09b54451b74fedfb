"""MSN502: ``.item()``, ``print`` and host conversions inside compiled code."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from .base import Invalid, Rule, Valid

__all__ = ["GraphHostSync"]

_HOST_METHODS = frozenset({"item", "tolist", "numpy", "cpu"})
_HOST_BUILTINS = frozenset({"float", "int", "bool", "list"})


class GraphHostSync(Rule):
    """What it does: finds ``.item()`` / ``.tolist()`` / ``.numpy()`` /
    ``.cpu()`` on tensors, ``float(t)`` / ``int(t)`` / ``bool(t)``, and
    ``print(...)`` inside code compiled in Graph mode.

    Why: a compiled graph has no concrete values while it is being built;
    turning a tensor into a Python value or printing it forces a fallback to
    the Python interpreter (JIT Fallback), breaking the graph in two and
    costing the speed Graph mode is for.  PyNative: not reported.

    Fix safety: no automatic fix; return the tensor and convert outside the
    compiled function, or use ``mindspore.ops.Print`` for debugging.
    """

    CODE = "MSN502"
    NAME = "graph-host-sync"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "host conversion or print inside compiled code"
    WHY = "Converting a tensor to a Python value or printing inside a Graph-mode function forces a Python fallback."
    SUGGESTION = "Return the tensor and call `.item()` / print outside `forward`."
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n        return x.sum()\n"
              "net = Net()\nprint(net(1).item())\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        print(x.shape)\n        return x\n", line=4, col=9, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        s = x.sum().item()\n        return x * s\n", line=4, col=13, mode="graph"),
        Invalid("import mindspore as ms\nimport torch\n@ms.jit\ndef step(x: torch.Tensor):\n"
                "    return float(x)\n", line=5, col=12, mode="graph"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if not ctx.in_graph_code():
            return
        func = node.func
        if isinstance(func, ast.Name) and ctx.infer.lookup(func.id) is None and ctx.infer.qualname(func) is None:
            if func.id == "print":
                ctx.report(node, message="`print` inside compiled code")
            elif func.id in _HOST_BUILTINS and node.args and ctx.infer.is_tensor(node.args[0]):
                ctx.report(node, message=f"`{func.id}()` of a tensor inside compiled code")
        elif (isinstance(func, ast.Attribute) and func.attr in _HOST_METHODS
              and ctx.infer.is_tensor(func.value)):
            ctx.report(node, message=f"`.{func.attr}()` inside compiled code")
