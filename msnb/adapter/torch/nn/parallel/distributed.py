"""msnb implementation of ``torch.nn.parallel.DistributedDataParallel``.

At construction rank 0's parameters and buffers are broadcast to every rank.
During ``backward()`` a hook on each parameter notes that gradients are
coming; when the pass has finished (the autograd engine's queued callback)
the gradients are averaged across ranks, in buckets of ``bucket_cap_mb``,
each bucket one ``all_reduce`` on MindSpore's communication engine.  The
all-reduce starts after the backward pass, not overlapped with it.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _dist():
    from ... import distributed
    return distributed


def _torch():
    import msnb.adapter.torch as torch
    return torch


class DistributedDataParallel(Module):
    """msnb implementation of ``torch.nn.parallel.DistributedDataParallel``."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        dist = _dist()
        if not dist.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        if mixed_precision is not None or device_mesh is not None:
            raise NotImplementedError("DistributedDataParallel(mixed_precision=..., device_mesh=...) is not "
                                      f"supported by msnb yet ({_SUPPORT})")
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any "
                               "parameter that requires a gradient.")
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap = 25 if bucket_cap_mb is None else bucket_cap_mb
        object.__setattr__(self, "_msnb", _Reducer(params, process_group, int(cap * 1024 * 1024)))
        if init_sync:
            self._sync_states()

    def _sync_states(self):
        """Rank 0's parameters and buffers, on every rank."""
        dist = _dist()
        src = dist.get_global_rank(self.process_group, 0) if self.process_group is not None else 0
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            dist.broadcast(t, src, group=self.process_group)

    def forward(self, *inputs, **kwargs):
        torch = _torch()
        reducer = self._msnb
        reducer.sync_next = self.require_backward_grad_sync and torch.is_grad_enabled()
        if self.broadcast_buffers and self.require_forward_param_sync:
            dist = _dist()
            src = dist.get_global_rank(self.process_group, 0) if self.process_group is not None else 0
            for b in self.module.buffers():
                dist.broadcast(b, src, group=self.process_group)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward after it averages them all."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        raise NotImplementedError(f"DistributedDataParallel.register_comm_hook is not supported by msnb yet "
                                  f"({_SUPPORT})")

    def join(self, *args, **kwargs):
        raise NotImplementedError(f"DistributedDataParallel.join is not supported by msnb yet ({_SUPPORT})")

    def _set_static_graph(self):
        self.static_graph = True


class _Reducer:
    """Averages the parameters' gradients across ranks once a backward pass has finished."""

    def __init__(self, params, group, cap_bytes):
        from ...autograd import graph
        self.params, self.group, self.cap = params, group, max(1, cap_bytes)
        self.sync_next, self.queued, self._queue = False, False, graph.queue_callback
        for p in params:
            p.register_hook(self._on_grad)

    def _on_grad(self, grad):
        if self.sync_next and not self.queued:
            self.queued = True
            self._queue(self.reduce)
        return None

    def _buckets(self):
        """Parameters grouped by dtype, then cut into buckets of at most ``cap`` bytes (in order)."""
        by_dtype: dict = {}
        for p in self.params:
            by_dtype.setdefault(p.dtype, []).append(p)
        for group in by_dtype.values():
            bucket, size = [], 0
            for p in group:
                nbytes = p.numel() * p.element_size()
                if bucket and size + nbytes > self.cap:
                    yield bucket
                    bucket, size = [], 0
                bucket.append(p)
                size += nbytes
            if bucket:
                yield bucket

    def reduce(self):
        """All-reduce every bucket (the gradients and a used-here flag per parameter), then average."""
        self.queued = False
        dist, torch = _dist(), _torch()
        world = dist.get_world_size(self.group)
        for bucket in self._buckets():
            parts = []
            for p in bucket:
                g = p.grad
                parts.append(g.detach().numpy().reshape(-1) if g is not None
                             else np.zeros(p.numel(), dtype=p.detach().numpy().dtype))
            used = np.array([p.grad is not None for p in bucket], np.float32)
            flat = torch.from_numpy(np.concatenate(parts))
            flags = torch.from_numpy(used)
            dist.all_reduce(flat, group=self.group)
            dist.all_reduce(flags, group=self.group)
            avg = flat.numpy() / world
            counts = flags.numpy()
            offset = 0
            with torch.no_grad():
                for p, count in zip(bucket, counts):
                    n = p.numel()
                    value = torch.from_numpy(avg[offset:offset + n].astype(parts[0].dtype).reshape(
                        tuple(p.shape)))
                    offset += n
                    if p.grad is not None:
                        p.grad.copy_(value)
                    elif count > 0:
                        p.grad = value
