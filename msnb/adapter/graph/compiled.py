"""Modules compiled on request: what ``torch.compile`` and ``torch.jit``
return for an ``nn.Module``.

A wrapped module's calls go through graph mode (:mod:`msnb.adapter.graph.module`)
whatever the cell's ``--mode`` is: its forward and backward are recorded and
replayed as MindSpore graphs, and what cannot be compiled falls back to
PyNative with the usual one-line reason.  The first call says once that the
module runs in msnb's graph mode, so nobody mistakes it for TorchDynamo or
TorchScript.
"""

from __future__ import annotations

import sys

from . import capture as _capture
from . import module as _graph_module

__all__ = ["compiled_call", "announce", "STANCE", "reset"]

_announced: set[int] = set()
#: ``[stance]``: torch.compiler.set_stance's current stance ("default" or "force_eager")
STANCE = ["default"]


def announce(api: str, module, stream=None) -> None:
    """Say once per module object how ``api`` runs it."""
    if id(module) in _announced:
        return
    _announced.add(id(module))
    name = type(module).__name__
    print(f"msnb: {api}({name}) runs {name} as compiled MindSpore graphs (msnb graph mode)",
          file=stream or sys.stderr)


def compiled_call(module, args, kwargs):
    """Call ``module`` through graph mode (a plain call when already inside a recording)."""
    stance = STANCE[0]
    if stance == "force_eager" or _capture.current() is not None:
        return module._call_eager(args, kwargs)
    if stance != "default":
        if stance in ("eager_on_recompile", "fail_on_recompile"):
            from ..torch._missing import NotSupportedError, not_supported_message
            raise NotSupportedError(not_supported_message(f"torch.compiler.set_stance({stance!r})"))
        raise RuntimeError(f"invalid torch.compile stance '{stance}'")
    return _graph_module.call(module, args, kwargs, module._call_eager)


def reset() -> None:
    """``torch._dynamo.reset``: every compiled module's graphs are dropped (the next calls record anew)."""
    from . import region
    for r in list(region.ALL):
        r.entries.clear()
        r.seen.clear()
        r.eager.clear()
    _announced.clear()
    region.reset()
