"""``OptimizedModule``: what ``torch.compile(module)`` returns.

As in PyTorch, the wrapper is an ``nn.Module`` holding the original as
``_orig_mod`` (its state dict keys carry that prefix), forwarding attribute
reads to it.  Calls run through msnb's graph mode (see
:mod:`msnb.adapter.graph.compiled`)."""

from __future__ import annotations

from ..graph import compiled as _compiled
from .nn.modules.module import Module

__all__ = ["OptimizedModule", "compile"]

_COMPILE_KWARGS = ("fullgraph", "dynamic", "backend", "mode", "options", "disable")


class OptimizedModule(Module):
    """msnb implementation of ``torch._dynamo.eval_frame.OptimizedModule``."""

    def __init__(self, mod, api="torch.compile"):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_msnb_api"] = api

    def forward(self, *args, **kwargs):
        _compiled.announce(self.__dict__["_msnb_api"], self._orig_mod)
        return _compiled.compiled_call(self._orig_mod, args, kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            orig = self.__dict__.get("_modules", {}).get("_orig_mod")
            if orig is None:
                raise
            return getattr(orig, name)

    def __repr__(self):
        return f"OptimizedModule(\n  (_orig_mod): {repr(self._orig_mod)}\n)"


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None,  # noqa: A001
            options=None, disable=False):
    """msnb implementation of ``torch.compile``: a module runs as compiled
    MindSpore graphs (msnb graph mode), said once at its first call; a plain
    function is returned unchanged (msnb compiles module calls, not functions)."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)
    if not callable(model):
        raise RuntimeError(f"torch.compile: expected a module or a callable, got {type(model).__name__}")
    return model
