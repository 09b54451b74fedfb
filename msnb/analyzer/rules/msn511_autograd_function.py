"""MSN511: custom ``torch.autograd.Function`` in Graph mode."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from .base import Invalid, Rule, Valid

__all__ = ["AutogradFunction"]


class AutogradFunction(Rule):
    """What it does: finds classes deriving from
    ``torch.autograd.Function``.

    Why: ``info`` in Graph mode, not an error, because msnb's graph mode
    compiles it.  msnb records a module call while it runs; a Function's
    Python ``forward(ctx, ...)`` runs during that recording like any other
    code, and its Python ``backward(ctx, ...)`` is recorded into the
    compiled backward graph.  Measured: a Linear -> ``Sq.apply`` -> Linear
    model whose ``backward`` deliberately returns ``3 * x * g`` trains with
    SGD to bit-identical losses and gradients in both modes, with no
    fallback (forward, backward and update compiled).  An error would block the cell (the magic
    stops on errors), which must not happen to code that works; dropping the
    Graph-mode report entirely would hide a real portability fact, hence
    ``info``: code compiled with MindSpore's own ``ms.jit`` instead cannot
    take a Python ``Function`` with a ``ctx`` object and needs a Cell with a
    ``bprop`` method (MSAdapter guide 4.2.1).  What the Function's
    ``forward`` / ``backward`` do is checked like a module's ``forward``
    (MSN501-MSN503: a host read there makes the calling module run in
    PyNative).  PyNative runs the Python methods: not reported (MSN401
    reports it if the adapter lacks ``torch.autograd.Function``).

    Fix safety: no automatic fix and none needed on msnb; to port the code to
    plain MindSpore ``ms.jit``, rewrite the backward as
    ``bprop(self, *inputs, out, grad_output)``.
    """

    CODE = "MSN511"
    NAME = "graph-autograd-function"
    CATEGORY = Category.AUTOGRAD_FUNCTION
    MESSAGE = "custom autograd.Function: msnb's graph mode records its Python backward into the compiled graph"
    WHY = ("msnb's graph mode runs the Function while it records the module that calls it and records its "
           "Python backward into the compiled backward graph (same gradients as PyNative). MindSpore's own "
           "`ms.jit` could not compile it: there it needs a Cell with `bprop`.")
    SUGGESTION = ("Nothing to change for msnb. For plain MindSpore `ms.jit`, rewrite it as an `nn.Cell` whose "
                  "`construct` computes the output and `bprop(self, x, ..., out, grad_output)` returns the input "
                  "gradients.")
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.INFO
    VALID = [
        Valid("import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
              "        return x\n", mode="pynative"),
        Valid("import torch.nn as nn\nclass M(nn.Module):\n    def forward(self, x):\n        return x\n",
              mode="graph"),
    ]
    INVALID = [
        Invalid("import torch\nclass Gdn(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                "        ctx.save_for_backward(x)\n        return x\n", line=2, col=1, severity=Severity.INFO,
                mode="graph"),
        Invalid("from torch.autograd import Function\nclass Clip(Function):\n    pass\n", line=2, col=1,
                severity=Severity.INFO, mode="graph"),
    ]

    def visit_ClassDef(self, node: ast.ClassDef, ctx) -> None:
        if any(ctx.infer.is_function_base(b) for b in node.bases):
            ctx.report(node, message=f"custom autograd.Function `{node.name}`: msnb's graph mode compiles it "
                                     "(its Python backward is recorded); plain `ms.jit` would need a Cell with "
                                     "`bprop`")
