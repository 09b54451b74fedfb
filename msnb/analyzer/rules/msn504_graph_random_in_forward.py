"""MSN504: random numbers drawn inside a recorded ``forward``."""

from __future__ import annotations

import ast

from ..finding import Category, Severity
from ._graph import RECORDED
from .base import Invalid, Rule, Valid

__all__ = ["GraphRandomInForward"]

_TORCH_RANDOM = frozenset(f"torch.{n}" for n in (
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal", "bernoulli",
    "multinomial", "poisson"))

#: Functions that draw only when training; value = (position of the
#: ``training`` argument, its name, its default).
_TRAINING_GATED = {
    "torch.nn.functional.dropout": (2, "training", True),
    "torch.nn.functional.dropout1d": (2, "training", True),
    "torch.nn.functional.dropout2d": (2, "training", True),
    "torch.nn.functional.dropout3d": (2, "training", True),
    "torch.nn.functional.alpha_dropout": (2, "training", False),
    "torch.nn.functional.feature_alpha_dropout": (2, "training", False),
    "torch.nn.functional.rrelu": (3, "training", False),
    "torch.dropout": (2, "train", None),
}
_ALWAYS = frozenset({"torch.nn.functional.gumbel_softmax"})

#: Tensor methods that fill or sample with random numbers.
_RANDOM_METHODS = frozenset({"uniform_", "normal_", "bernoulli_", "bernoulli", "random_", "exponential_",
                             "cauchy_", "log_normal_", "geometric_", "multinomial"})


class GraphRandomInForward(Rule):
    """What it does: finds random draws inside ``forward`` of an
    ``nn.Module`` or autograd Function: ``torch.rand*`` / ``randn*`` /
    ``randint*`` / ``randperm`` / ``normal`` / ``bernoulli`` /
    ``multinomial`` / ``poisson``, ``F.dropout*`` / ``F.gumbel_softmax`` /
    ``F.rrelu`` unless called with a literal ``training=False``, and tensor
    methods such as ``x.uniform_()`` / ``x.bernoulli()``.

    Why: msnb draws random numbers on the host, and a replay of a recorded
    graph would reuse the recorded draw (the same dropout mask every step).
    So msnb's graph mode runs the module that draws in PyNative (one
    ``msnb graph: ... draws random numbers on the host`` line); results are
    the same and its submodules are still compiled.  Measured: a forward
    with ``F.dropout(x, training=self.training)`` falls back in ``train()``
    and compiles in ``eval()``; one with an unconditional
    ``torch.randn_like(x)`` falls back in both.  ``info``, not a warning:
    the draw is usually the point (noise, dropout) and there is nothing to
    rewrite.  ``nn.Dropout`` layers have the same effect on the module that
    calls them, but the analyzer does not follow ``self.<layer>`` to its
    class and does not report them.  ``@mindspore.jit`` functions and
    PyNative: not reported.

    Fix safety: no automatic fix and none required; guard noise that is
    only for training with ``if self.training:`` so evaluation compiles.
    """

    CODE = "MSN504"
    NAME = "graph-random-in-forward"
    CATEGORY = Category.GRAPH_MODE
    MESSAGE = "random numbers drawn inside forward"
    WHY = ("msnb draws random numbers on the host and a replayed graph would reuse the recorded draw, so msnb's "
           "graph mode runs this module in PyNative while it draws (same results; its layers are still compiled).")
    SUGGESTION = ("Nothing to change; draws gated on `self.training` (dropout) let `eval()` calls compile, so guard "
                  "training-only noise with `if self.training:`.")
    SEVERITY_PYNATIVE = None
    SEVERITY_GRAPH = Severity.INFO
    VALID = [
        Valid("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nclass Net(nn.Module):\n"
              "    def forward(self, x):\n        return F.dropout(x, 0.5, training=False)\n", mode="graph"),
        Valid("import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        return x + torch.randn_like(x)\n", mode="pynative"),
        Valid("import torch\nx = torch.randn(4, 3)\nmask = torch.rand(4) > 0.5\n", mode="graph"),
    ]
    INVALID = [
        Invalid("import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        return x + 0.1 * torch.randn_like(x)\n", line=5, col=26, severity=Severity.INFO,
                mode="graph"),
        Invalid("import torch.nn as nn\nimport torch.nn.functional as F\nclass Net(nn.Module):\n"
                "    def forward(self, x):\n        return F.dropout(x, 0.2, training=self.training)\n", line=5,
                col=16, severity=Severity.INFO, mode="graph"),
        Invalid("import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        keep = x.new_empty(x.shape).bernoulli_(0.9)\n        return x * keep\n", line=4, col=16,
                severity=Severity.INFO, mode="graph"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if ctx.graph_code_kind() != RECORDED:
            return
        func = node.func
        q = ctx.infer.qualname(func)
        if q is not None:
            if q in _TORCH_RANDOM or q in _ALWAYS or (q in _TRAINING_GATED and self._may_train(node, q)):
                ctx.report(node, message=f"`{ctx.segment(func)}` draws random numbers: in graph mode this module "
                                         "runs in PyNative while it draws (msnb falls back); its layers are still "
                                         "compiled")
            return
        if (isinstance(func, ast.Attribute) and func.attr in _RANDOM_METHODS
                and ctx.infer.is_tensor(func.value)):
            ctx.report(node, message=f"`.{func.attr}()` draws random numbers: in graph mode this module runs in "
                                     "PyNative (msnb falls back); its layers are still compiled")

    @staticmethod
    def _may_train(node: ast.Call, q: str) -> bool:
        pos, name, default = _TRAINING_GATED[q]
        arg = next((k.value for k in node.keywords if k.arg == name), None)
        if arg is None and len(node.args) > pos and not any(isinstance(a, ast.Starred) for a in node.args[:pos + 1]):
            arg = node.args[pos]
        if arg is None:
            return default is not False
        return not (isinstance(arg, ast.Constant) and not arg.value)
