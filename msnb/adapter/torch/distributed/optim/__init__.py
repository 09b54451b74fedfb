"""msnb implementation of ``torch.distributed.optim``: ``DistributedOptimizer``.

``DistributedOptimizer(optim.SGD, [RRef(param), ...], lr=...)`` makes one
local optimizer on each worker that owns some of the parameters (an
``rpc.remote`` call), and ``step(context_id)`` runs them all at once: each
applies the gradients that the distributed autograd context holds on that
worker.  As in PyTorch, ``.grad`` of the parameters is neither read nor left
changed.
"""

from __future__ import annotations

import threading

__all__ = ["DistributedOptimizer"]


class _LocalOptimizer:
    """The optimizer for the parameters one worker owns (lives on that worker)."""

    def __init__(self, optim_cls, param_rrefs, args, kwargs):
        self.params = [r.local_value() for r in param_rrefs]
        self.optim = optim_cls(self.params, *args, **kwargs)
        self.lock = threading.Lock()

    def step(self, context_id):
        from .. import autograd as dist_autograd
        grads = dist_autograd.get_gradients(context_id)
        with self.lock:
            kept = [p.grad for p in self.params]
            try:
                for p in self.params:
                    p.grad = grads.get(p)
                self.optim.step()
            finally:
                for p, g in zip(self.params, kept):
                    p.grad = g


def _new_local(optim_cls, param_rrefs, args, kwargs):
    return _LocalOptimizer(optim_cls, param_rrefs, args, kwargs)


def _step(optim_rref, context_id):
    optim_rref.local_value().step(context_id)


class DistributedOptimizer:
    """msnb implementation of ``torch.distributed.optim.DistributedOptimizer``."""

    def __init__(self, optimizer_class, params_rref, *args, **kwargs):
        from .. import rpc
        by_owner: dict = {}
        for r in params_rref:
            if not isinstance(r, rpc.RRef):
                raise TypeError(f"DistributedOptimizer expects a list of RRefs to parameters, got "
                                f"{type(r).__name__}")
            by_owner.setdefault(r.owner(), []).append(r)
        self.remote_optimizers = [rpc.remote(owner, _new_local, args=(optimizer_class, refs, args, kwargs))
                                  for owner, refs in by_owner.items()]

    def step(self, context_id):
        """Apply the gradients of ``context_id`` on every owner (waits for all of them)."""
        from ...futures import wait_all
        from .. import autograd as dist_autograd
        from .. import rpc
        dist_autograd._get(context_id)  # an unknown context raises here, as in PyTorch
        wait_all([rpc.rpc_async(o.owner(), _step, args=(o, context_id)) for o in self.remote_optimizers])


from ..rpc._names import module_getattr_with as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributed.optim")
