"""MSN401: torch / torchvision names the adapter does not support."""

from __future__ import annotations

import ast
import difflib
import functools

from ..finding import Category, Severity
from ..inference import Kind
from .base import Invalid, Rule, Valid
from .msn402_deprecated_api import DEPRECATED

__all__ = ["UnsupportedApi", "ALTERNATIVES", "OWNED_BY_OTHER_RULES", "nearest_alternative"]

#: Hand-written alternatives for names with a known better spelling on msnb.
ALTERNATIVES = {
    "torch.Tensor.cuda": "`.to(device)`",
    "torch.nn.Module.cuda": "`.to(device)`",
    "torch.Tensor.cpu": "`.to(\"cpu\")`",
    "torch.autograd.Variable": "`torch.tensor(...)` or the tensor itself",
    "torch.nn.DataParallel": "a single-process model (run multi-device jobs with `msrun`)",
    "torch.Tensor.data_ptr": "no equivalent: MindSpore does not expose raw pointers",
    "torch.nn.utils.clip_grad_norm_": "`mindspore.ops.clip_by_global_norm` on the gradients",
    "torch.Tensor.type": "`.to(dtype)`",
    "torch.randint_like": "`torch.randint(low, high, x.shape)`",
}

#: Partial entries whose difference msnb's runtime removes (``relu(nan)`` is
#: nan, ``from_numpy`` shares memory): not reported per cell.
FIXED_IN_RUNTIME = frozenset({"torch.relu", "torch.Tensor.relu", "torch.nn.functional.relu", "torch.nn.ReLU",
                              "torch.from_numpy"})

#: Partial names whose documented difference concerns one argument value only: advice is given
#: where a call passes that value (``torch.device("cuda")`` runs; ``torch.device("meta")`` is refused).
PARTIAL_ONLY_FOR = {"torch.device": "meta", "torch.set_default_device": "meta"}

#: Namespaces whose names other rules explain better (avoid double reports).
OWNED_BY_OTHER_RULES = ("torch.cuda.", "torch.backends.", "torch.accelerator.", "torch.distributed.",
                        "torch.multiprocessing.", "torch.nn.parallel.", "torch.nn.DataParallel",
                        "torch.autograd.Variable")


@functools.lru_cache(maxsize=1024)
def _nearest(name: str, candidates: tuple[str, ...]) -> str | None:
    match = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return match[0] if match else None


def nearest_alternative(name: str, registry: dict) -> str | None:
    """The hand-written alternative, else the closest supported name in the
    same namespace (``torch.nn.functional.gelu`` -> ``...relu``)."""
    if name in ALTERNATIVES:
        return ALTERNATIVES[name]
    ns, _, last = name.rpartition(".")
    if ns == "torch.Tensor":  # x.softmax(...) -> torch.softmax(x, ...) when that is supported
        for fn in (f"torch.{last}", f"torch.nn.functional.{last}"):
            if fn in registry:
                return f"`{fn}(x, ...)`"
    candidates = _by_namespace(registry).get(name.rpartition(".")[0])
    if not candidates:
        return None
    best = _nearest(name, candidates)
    return f"`{best}`" if best else None


_NAMESPACE_INDEX: list = [None, -1, {}]  # [registry object, its size, index]


def _by_namespace(registry: dict) -> dict[str, tuple[str, ...]]:
    """Registry names grouped by namespace, rebuilt when the registry changes
    (keyed by identity and size: the registry only grows)."""
    if _NAMESPACE_INDEX[0] is registry and _NAMESPACE_INDEX[1] == len(registry):
        return _NAMESPACE_INDEX[2]
    index: dict[str, list[str]] = {}
    for n in registry:
        index.setdefault(n.rpartition(".")[0], []).append(n)
    frozen = {k: tuple(sorted(v)) for k, v in index.items()}
    _NAMESPACE_INDEX[:] = [registry, len(registry), frozen]
    return frozen


class UnsupportedApi(Rule):
    """What it does: finds every torch / torchvision name (functions,
    classes, ``torch.Tensor`` methods, ``nn.Module`` methods) that is a real
    PyTorch API (``data/torch_api.json``) but is absent from the adapter's
    support registry (``msnb/adapter/support.json``).  Names the registry
    marks ``partial`` are reported as info (advice, shown with ``%msnb
    analyze --all``) with the registry's note.

    Why: the adapter implements PyTorch on MindSpore name by name; a name it
    lacks raises ``AttributeError`` when the cell runs.  The rule reads the
    registry on every analysis and keeps no list of its own, so it follows
    the adapter as it grows.  Each name is reported once per cell.

    Fix safety: no automatic fix; the suggestion names the nearest
    supported alternative (hand-written map, then the closest registry name
    in the same namespace).
    """

    CODE = "MSN401"
    NAME = "unsupported-api"
    CATEGORY = Category.UNSUPPORTED_API
    MESSAGE = "not supported by msnb"
    WHY = "msnb does not implement this name, so the cell fails when it reaches it (AttributeError / NotImplementedError)."
    SUGGESTION = "Use a supported alternative (see the msnb support list)."
    SEVERITY_PYNATIVE = Severity.ERROR
    SEVERITY_GRAPH = Severity.ERROR
    VALID = [
        Valid("import numpy as np\nx = np.ones(3)\n"),
        # partial only for "meta": an ordinary device is no advice
        Valid("import torch\nd = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"),
        Valid("import torch\nclass Net:\n    def add_(self):\n        pass\nNet().add_()\n"),
        # attributes and namedtuple results are read as the runtime has them
        Valid("import torch\nx = torch.ones(3, 2, requires_grad=True)\nx.sum().backward()\ng = x.grad\n"
              "v = x.max(dim=1).values\ni = torch.max(x, 1).indices\nvals, idx = torch.max(x, 1)\nfirst = idx[0]\n"),
    ]
    INVALID = [
        Invalid("import torch\nd = torch.device('meta')\n", line=2, col=5, severity=Severity.INFO),
        Invalid("import torch\nx = torch.ones(3)\ny = x.int_repr()\n", line=3, col=5, severity=Severity.ERROR),
        Invalid("import torch as t\nimport torch.nn.functional as F\ny = F.conv_tbc(t.ones(4, 1, 2), "
                "t.ones(3, 2, 2), t.zeros(2))\n", line=3, col=5, severity=Severity.ERROR),
        Invalid("import torch\nfrom torch.nn.functional import conv_tbc\ny = conv_tbc(torch.ones(4, 1, 2), "
                "torch.ones(3, 2, 2), torch.zeros(2))\n", line=3, col=5, severity=Severity.ERROR),
    ]

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def _check(self, q: str, node: ast.AST, ctx) -> None:
        if (q in self.seen or q not in ctx.torch_api or q.startswith(OWNED_BY_OTHER_RULES)
                or q in DEPRECATED):
            return
        self.seen.add(q)
        entry = ctx.registry.get(q)
        if entry is not None:
            if q in PARTIAL_ONLY_FOR and not _passes(ctx.parent, node, PARTIAL_ONLY_FOR[q]):
                self.seen.discard(q)  # a later call may pass the value
                return
            if getattr(entry, "status", "supported") == "partial" and q not in FIXED_IN_RUNTIME:
                ctx.report(node, severity=Severity.INFO, message=f"`{q}` is only partly supported by msnb",
                           why="msnb implements this name with a documented difference from PyTorch (the support list).",
                           suggestion=getattr(entry, "note", "") or "See the msnb support list.")
            return
        alt = nearest_alternative(q, ctx.registry)
        ctx.report(node, message=f"`{q}` is not supported by msnb",
                   suggestion=f"Use {alt} instead." if alt else self.SUGGESTION)

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        p = ctx.parent
        if isinstance(p, ast.Attribute) and p.value is node:
            return
        q = ctx.infer.qualname(node)
        if q is None:
            kind = ctx.infer.kind(node.value)
            if kind is Kind.TENSOR:
                q = f"torch.Tensor.{node.attr}"
            elif kind is Kind.MODULE:
                q = f"torch.nn.Module.{node.attr}"
            else:
                return
        if q.startswith(("torch.", "torchvision.")):
            self._check(q, node, ctx)

    def visit_Name(self, node: ast.Name, ctx) -> None:
        if not isinstance(node.ctx, ast.Load):
            return
        q = ctx.infer.qualname(node)
        if q is not None and q != node.id and q.startswith(("torch.", "torchvision.")):
            self._check(q, node, ctx)


def _passes(parent: ast.AST | None, func: ast.AST, value: str) -> bool:
    """Is ``func`` called here with a string argument naming ``value`` (``"meta"``, ``"meta:0"``)?"""
    if not (isinstance(parent, ast.Call) and parent.func is func):
        return False
    args = list(parent.args) + [k.value for k in parent.keywords]
    return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.split(":")[0] == value
               for a in args)
