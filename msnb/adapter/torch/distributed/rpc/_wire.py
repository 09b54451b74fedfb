"""What travels between RPC workers: pickled messages whose tensors are numpy
payloads and whose RRefs are (owner, id) references.

Messages are only ever exchanged with workers of the same job, over
connections authenticated with the job's key (``multiprocessing.connection``'s
HMAC challenge), so unpickling a message runs only code those workers sent.

Tensors: a tensor becomes ``(array, dtype, requires_grad, is_parameter,
send_id)``.  Inside a distributed autograd context a tensor that requires grad
is recorded as a *send* of that context (``send_id``), and the receiver makes
it a fresh leaf that requires grad and records the matching *recv*: the
gradient reaching that leaf in ``dist_autograd.backward`` goes back to the
sender, which continues the backward pass on its own graph.
"""

from __future__ import annotations

import io
import pickle

import numpy as np

__all__ = ["dumps", "loads"]


def _torch():
    import msnb.adapter.torch as torch
    return torch


class _Pickler(pickle.Pickler):
    def __init__(self, file, ctx_id, dst):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._ctx_id, self._dst = ctx_id, dst
        self._torch = _torch()
        from . import RRef
        self._rref = RRef

    def persistent_id(self, obj):
        torch = self._torch
        if isinstance(obj, torch.Tensor):
            t = obj.detach()
            dtype = str(obj.dtype).replace("torch.", "")
            arr = (t.float() if dtype == "bfloat16" else t).numpy()
            arr = np.array(arr, copy=True)  # the bytes as they are now, not a view of live memory
            send_id = None
            if obj.requires_grad and self._ctx_id is not None:
                from ..autograd import _record_send
                send_id = _record_send(self._ctx_id, obj, self._dst)
            return ("T", arr, dtype, bool(obj.requires_grad), isinstance(obj, torch.nn.Parameter), send_id)
        if isinstance(obj, self._rref):
            return ("R", obj._owner, obj._id)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, ctx_id, src):
        super().__init__(file)
        self._ctx_id, self._src = ctx_id, src
        self._torch = _torch()

    def persistent_load(self, pid):
        torch = self._torch
        if pid[0] == "T":
            _, arr, dtype, requires_grad, is_param, send_id = pid
            t = torch.from_numpy(arr)
            if dtype == "bfloat16":
                t = t.to(torch.bfloat16)
            if is_param:
                t = torch.nn.Parameter(t, requires_grad=requires_grad)
            elif requires_grad:
                t.requires_grad_(True)
            if send_id is not None:
                from ..autograd import _record_recv
                _record_recv(self._ctx_id, t, self._src, send_id)
            return t
        if pid[0] == "R":
            from . import _rref_from_wire
            return _rref_from_wire(pid[1], pid[2])
        raise pickle.UnpicklingError(f"unknown persistent id {pid[0]!r}")


def dumps(obj, ctx_id=None, dst=None) -> bytes:
    """``obj`` as bytes for worker ``dst`` (sends recorded in context ``ctx_id``)."""
    buf = io.BytesIO()
    _Pickler(buf, ctx_id, dst).dump(obj)
    return buf.getvalue()


def loads(data: bytes, ctx_id=None, src=None):
    """The object ``dumps`` made on worker ``src`` (recvs recorded in context ``ctx_id``)."""
    return _Unpickler(io.BytesIO(data), ctx_id, src).load()
