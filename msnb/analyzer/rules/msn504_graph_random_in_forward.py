"""MSN504: random numbers drawn inside a recorded ``forward``."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._graph import RECORDED
from .base import Invalid, Rule, Valid

__all__ = ["GraphRandomInForward"]

#: Samplers whose draws depend on tensor values: graph mode cannot feed them.
_TORCH_RANDOM = frozenset({"torch.multinomial", "torch.poisson"})

#: Tensor methods that fill or sample with random numbers (in place, or from
#: the tensor's own probabilities): graph mode cannot feed them either.
_RANDOM_METHODS = frozenset({"uniform_", "normal_", "bernoulli_", "bernoulli", "random_", "exponential_",
                             "cauchy_", "log_normal_", "geometric_", "multinomial"})


class GraphRandomInForward(Rule):
    """What it does: finds random draws inside ``forward`` of an
    ``nn.Module`` or autograd Function that msnb's graph mode cannot feed to
    a compiled graph: ``torch.multinomial`` / ``torch.poisson`` and tensor
    methods that fill or sample (``x.uniform_()``, ``x.normal_()``,
    ``x.bernoulli_()``, ``x.bernoulli()``, ...).

    Why: msnb draws random numbers on the host.  The samplers
    (``torch.rand`` / ``randn`` / ``randint`` / ``randperm`` /
    ``*_like``, ``torch.normal`` with numbers, ``torch.bernoulli(x, p)``,
    and dropout masks) are fed to the compiled graph -- drawn again before
    every replay, PyNative's numbers -- so they are not reported.  The draws
    found here depend on a tensor's values or write into a tensor in place;
    a replay would reuse the recorded draw, so msnb runs that module in
    PyNative (one ``msnb graph: ... draws random numbers on the host``
    line; same results; its submodules are still compiled).  ``info``: the
    draw is usually the point.  ``@mindspore.jit`` functions and PyNative:
    not reported.

    Fix safety: no automatic fix; ``x + scale * torch.randn_like(x)``
    instead of ``x.normal_()``-style fills keeps the module compiled.
    """

    CODE = "MSN504"
    NAME = "graph-random-in-forward"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "random draw inside forward that graph mode cannot compile"
    WHY = ("msnb draws random numbers on the host; samplers like `torch.randn` and dropout masks are fed to the "
           "compiled graph, but in-place fills and draws from a tensor's values would be frozen by a replay, so "
           "msnb's graph mode runs this module in PyNative (same results; its layers are still compiled).")
    SUGGESTION = ("Use an out-of-place sampler (`torch.rand_like`, `torch.randn_like`, `torch.bernoulli(x, p)`) "
                  "instead of in-place fills to keep the module compiled.")
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.WARNING
    VALID = [
        Valid("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nclass Net(nn.Module):\n"
              "    def forward(self, x):\n        return F.dropout(x, 0.2, training=self.training)\n", mode="graph"),
        Valid("import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        return x + 0.1 * torch.randn_like(x)\n", mode="graph"),
        Valid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        keep = x.new_empty(x.shape).bernoulli_(0.9)\n        return x * keep\n", mode="pynative"),
        Valid("import torch\nx = torch.randn(4, 3)\nx.uniform_()\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        keep = x.new_empty(x.shape).bernoulli_(0.9)\n        return x * keep\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=4, col=16,
                severity=Severity.WARNING, mode="graph"),
        Invalid("import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, probs):\n"
                "        return torch.multinomial(probs, 1)\n"
                "\nimport torch\nnet = Net()\nfor _ in range(3):\n    out = net(torch.ones(2, 3))\n", line=5, col=16, severity=Severity.WARNING,
                mode="graph"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if ctx.graph_code_kind() != RECORDED:
            return
        func = node.func
        q = ctx.infer.qualname(func)
        if q is not None:
            if q in _TORCH_RANDOM:
                ctx.report(node, message=f"`{ctx.segment(func)}` draws from a tensor's values: in graph mode this "
                                         "module runs in PyNative (msnb falls back); its layers are still compiled")
            return
        if (isinstance(func, ast.Attribute) and func.attr in _RANDOM_METHODS
                and ctx.infer.is_tensor(func.value)):
            ctx.report(node, message=f"`.{func.attr}()` draws random numbers into a tensor: in graph mode this "
                                     "module runs in PyNative (msnb falls back); its layers are still compiled")
