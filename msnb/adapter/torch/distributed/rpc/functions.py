"""msnb implementation of ``torch.distributed.rpc.functions``: ``async_execution``."""

from __future__ import annotations

import functools

__all__ = ["async_execution"]


def async_execution(fn):
    """Mark ``fn`` as returning a ``torch.futures.Future``: the callee answers the RPC when that future
    completes, so the pool thread is free meanwhile."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper._wrapped_async_rpc_function = fn
    return wrapper
