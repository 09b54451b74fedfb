"""Padding modules over ``nn.functional.pad``: Zero / Constant / Reflection / Replication / Circular, 1-3d."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [f"{kind}Pad{n}d" for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular")
           for n in (1, 2, 3)]


class _PadNd(Module):
    mode = "constant"
    dims = 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (padding,) * (2 * self.dims) if isinstance(padding, int) else tuple(padding)
        self.value = value

    def forward(self, input):
        if self.mode == "circular" and input.ndim not in (self.dims + 1, self.dims + 2):
            # PyTorch's circular padding modules check the rank themselves (a ValueError)
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.ndim}D input)")
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}" + (f", value={self.value}" if self.mode == "constant" and
                                    type(self).__name__.startswith("Constant") else "")


def _make(kind, n):
    mode = {"Zero": "constant", "Constant": "constant", "Reflection": "reflect", "Replication": "replicate",
            "Circular": "circular"}[kind]
    name = f"{kind}Pad{n}d"
    if kind == "Constant":
        def __init__(self, padding, value):
            _PadNd.__init__(self, padding, value)
    else:
        def __init__(self, padding):
            _PadNd.__init__(self, padding)
    return type(name, (_PadNd,), {"mode": mode, "dims": n, "__init__": __init__,
                                  "__doc__": f"msnb implementation of ``torch.nn.{name}``.",
                                  "__module__": __name__, "__qualname__": name})


for _kind in ("Zero", "Constant", "Reflection", "Replication", "Circular"):
    for _n in (1, 2, 3):
        globals()[f"{_kind}Pad{_n}d"] = _make(_kind, _n)
del _kind, _n
