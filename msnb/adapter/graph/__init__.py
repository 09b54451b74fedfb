"""Graph mode: unchanged PyTorch code, run as compiled MindSpore graphs.

``--mode graph`` (or the panel) turns it on for a cell.  msnb then compiles
*regions* it can see the edges of, without touching the user's source:

* a top-level ``nn.Module`` call -- its forward, and (when autograd is on)
  its backward as a second graph that ``loss.backward()`` runs;
* ``optimizer.step()`` -- the whole update of every parameter;
* ``torch.nn.utils.clip_grad_norm_``.

A region is recorded with MindSpore's trace recorder the second time the
same *guard key* (input shapes and dtypes, train/eval flags, grad mode, AMP,
parameter identities, hyper-parameters) is seen, then replayed for every
later call with that key.  What cannot be recorded faithfully -- a value read
on the host (``.item()``, printing, ``if tensor:``), random numbers drawn on
the host, hooks -- makes that region run in PyNative instead, with one line
saying what and where; :func:`explain` lists them all.

Layout: ``capture`` (recording, graph breaks, residuals), ``region``
(the cache of compiled graphs per call site, progress, fallbacks),
``module`` and ``optimizer`` (the two kinds of region).
"""

from __future__ import annotations

from .region import Fallback, explain, fallbacks, reset, stats

__all__ = ["STATE", "enabled", "set_enabled", "explain", "fallbacks", "stats", "reset", "Fallback"]


class _State:
    enabled = False


STATE = _State()


def enabled() -> bool:
    """Whether adapter code runs in graph mode now."""
    return STATE.enabled


def set_enabled(flag: bool) -> bool:
    """Turn graph mode on or off; returns the previous setting (the runtime calls this per cell)."""
    prev, STATE.enabled = STATE.enabled, bool(flag)
    return prev


def _init_from_runtime() -> None:
    import sys
    ctx = sys.modules.get("msnb.runtime.context")
    active = ctx.active() if ctx is not None else None
    if active is not None:
        STATE.enabled = active.mode == "graph"


_init_from_runtime()
