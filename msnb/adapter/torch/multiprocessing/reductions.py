"""Tensors in shared memory, and how ``torch.multiprocessing`` sends tensors between processes.

A shared tensor's data is a numpy array over a ``multiprocessing.shared_memory``
segment, handed to MindSpore without a copy (``_ms.alias_host``): its kernels
read the segment when they run, and in-place writes (optimizer steps,
``add_``, ``copy_``) store into it with ``ops.assign``.  So an update made by
one process is seen by every other process that maps the segment, which is
what Hogwild training needs.  Costs: one host copy when a tensor is first
shared, and no copy after; on CPU every kernel reads the segment directly.
(On Ascend, device memory cannot alias host memory, so this path is CPU
only.)

Like PyTorch, sending a tensor to another process (``Process`` arguments,
``Queue.put``) moves it to shared memory first, and the receiver gets a
tensor over the same segment.  Only multiprocessing's own pickler does this;
``pickle.dumps`` and ``torch.save`` still copy the values.

Lifetime: the process that owns the segments at the top of the tree (the
one that is not an msnb child) unlinks every segment it created or received
when it exits; a segment only a child knew about is removed by Python's
resource tracker when the top process exits.
"""

from __future__ import annotations

import atexit
import os
import threading
from multiprocessing import shared_memory
from multiprocessing.reduction import ForkingPickler

import numpy as np

from ... import _ms

__all__ = ["share", "is_shared", "init_reductions", "rebuild_shared_tensor"]

#: set in processes that torch.multiprocessing started (they never unlink segments)
CHILD_ENV = "MSNB_MP_CHILD"
_LOCK = threading.Lock()
_SEGMENTS: dict[str, shared_memory.SharedMemory] = {}


class _Segment:
    """What keeps a shared tensor's memory mapped: its segment's name and mapping."""

    __slots__ = ("name", "shm")

    def __init__(self, shm: shared_memory.SharedMemory):
        self.name, self.shm = shm.name, shm


def _unlink_all() -> None:
    if os.environ.get(CHILD_ENV):
        return
    for shm in list(_SEGMENTS.values()):
        try:
            shm.unlink()
        except OSError:
            pass


atexit.register(_unlink_all)


def _segment(name: str | None, size: int = 0) -> shared_memory.SharedMemory:
    with _LOCK:
        if name is not None and name in _SEGMENTS:
            return _SEGMENTS[name]
        shm = shared_memory.SharedMemory(name=name, create=name is None, size=max(size, 1))
        _SEGMENTS[shm.name] = shm
        return shm


def is_shared(t) -> bool:
    return _ms.SHARED in t.__dict__


def _check(t) -> np.dtype:
    from .. import _dtype as D
    if _ms.device_target() != "CPU":
        raise NotImplementedError(f"share_memory_() on {_ms.device_target()} is not supported by msnb yet: device "
                                  "memory cannot alias shared host memory (see the support list: python -m "
                                  "msnb.adapter.support --markdown)")
    if t.dtype is D.bfloat16:
        raise NotImplementedError("share_memory_() on a bfloat16 tensor is not supported by msnb yet (numpy has "
                                  "no bfloat16 to hold it; see the support list: python -m msnb.adapter.support "
                                  "--markdown)")
    return np.dtype(t.dtype.numpy)


def share(t):
    """Move ``t``'s data into a new shared-memory segment, in place; returns ``t``.

    A view (msnb views hold their own data and pass writes on to their base)
    shares its own values: the base it views stays in this process's memory."""
    if is_shared(t):
        return t
    dtype = _check(t)
    values = np.ascontiguousarray(t.detach().numpy(), dtype=dtype)
    shm = _segment(None, values.nbytes)
    buf = np.ndarray(values.shape, dtype, buffer=shm.buf)
    buf[...] = values
    _ms.alias_host(t, buf, _Segment(shm))
    return t


def _attach(t, name: str) -> None:
    """Make ``t`` (already of the right shape and dtype) read and write segment ``name``."""
    shm = _segment(name)
    buf = np.ndarray(tuple(t.shape), np.dtype(t.dtype.numpy), buffer=shm.buf)
    _ms.alias_host(t, buf, _Segment(shm))


def rebuild_shared_tensor(name, shape, dtype_name, requires_grad, param_name):
    """The receiving side: a tensor (or Parameter when ``param_name`` is not None) over segment ``name``."""
    import msnb.adapter.torch as torch
    from ..nn.parameter import Parameter
    dtype = getattr(torch, dtype_name.rsplit(".", 1)[-1])
    t = torch.zeros(shape, dtype=dtype)
    if param_name is not None:
        t = Parameter(t, requires_grad)
        t.name = param_name
    _attach(t, name)
    if param_name is None and requires_grad:
        t.requires_grad_(True)
    return t


def _reduce(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries.  If you just want to transfer the data, "
                           "call detach() on the tensor before serializing (e.g., putting it on the queue).")
    share(t)
    param_name = t.name if getattr(t, "_is_param", False) else None
    return rebuild_shared_tensor, (t.__dict__[_ms.SHARED].name, tuple(t.shape), repr(t.dtype), t.requires_grad,
                                   param_name)


_DONE = []


def init_reductions() -> None:
    """Register the tensor reducers with multiprocessing's pickler (once)."""
    if _DONE:
        return
    from .._tensor import Tensor
    from ..nn.parameter import Parameter
    ForkingPickler.register(Tensor, _reduce)
    ForkingPickler.register(Parameter, _reduce)
    _DONE.append(True)
