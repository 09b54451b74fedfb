"""The collectives, on MindSpore's communication engine (numpy arrays in and out).

Every cross-process byte goes through ``mindspore.communication`` and the
``mindspore.ops`` collective primitives; msnb has no transport of its own.

MindSpore 2.10's CPU backend (measured with two ``msrun`` workers, see
tests/adapter/torch/distributed) runs ``AllReduce`` with ``sum`` on float16
and float32 only, ``AllGather`` and ``Broadcast`` on float16/32/64 and
int16/32/64; ``ReduceScatter``, ``Barrier``, ``Send``/``Receive`` and the
``comm_func`` functions have no CPU kernel.  So on CPU the other reductions
gather every rank's tensor with ``AllGather`` and reduce it locally in rank
order (same result on every rank); int8/uint8/bool travel as int32.  On
other devices (Ascend: HCCL) the native primitive runs.
"""

from __future__ import annotations

import numpy as np

from ..._ms import device_target, ms

__all__ = ["init", "world_rank", "world_size", "world_group", "create_group", "release",
           "all_reduce", "all_gather", "broadcast", "REDUCERS"]

_ops = ms.ops
_PRIMS: dict = {}
#: dtypes the CPU kernels of AllGather / Broadcast accept
_CPU_MOVABLE = {np.dtype(t) for t in (np.float16, np.float32, np.float64, np.int16, np.int32, np.int64)}
_CPU_SUMMABLE = {np.dtype(np.float16), np.dtype(np.float32)}

#: local reduction over axis 0 of the gathered (world, ...) array, in rank order
REDUCERS = {
    "sum": lambda a: np.sum(a, axis=0, dtype=a.dtype),
    "prod": lambda a: np.prod(a, axis=0, dtype=a.dtype),
    "max": lambda a: np.max(a, axis=0),
    "min": lambda a: np.min(a, axis=0),
    "band": lambda a: np.bitwise_and.reduce(a, axis=0),
    "bor": lambda a: np.bitwise_or.reduce(a, axis=0),
    "bxor": lambda a: np.bitwise_xor.reduce(a, axis=0),
}


def init() -> None:
    """``mindspore.communication.init()`` with the backend of the device (HCCL, NCCL or MCCL)."""
    from mindspore import communication
    communication.init()


def world_rank() -> int:
    from mindspore import communication
    return int(communication.get_rank())


def world_size() -> int:
    from mindspore import communication
    return int(communication.get_group_size())


def world_group() -> str:
    from mindspore.communication import GlobalComm
    return GlobalComm.WORLD_COMM_GROUP


def create_group(name: str, ranks) -> None:
    from mindspore import communication
    communication.create_group(name, list(ranks))


def release() -> None:
    from mindspore import communication
    communication.release()


def _prim(kind, *key):
    p = _PRIMS.get((kind, key))
    if p is None:
        if kind == "allreduce":
            p = _ops.AllReduce(key[0], group=key[1])
        elif kind == "allgather":
            p = _ops.AllGather(group=key[0])
        else:
            p = _ops.Broadcast(key[0], group=key[1])
        _PRIMS[(kind, key)] = p
    return p


def _cpu() -> bool:
    return device_target() == "CPU"


def _movable(a: np.ndarray) -> tuple[np.ndarray, np.dtype]:
    """``a`` as a dtype the engine moves (at least 1-D), and the dtype to cast back to."""
    src = a.dtype
    if _cpu() and src not in _CPU_MOVABLE:
        if src.kind not in "biu":
            raise TypeError(f"msnb's distributed on CPU cannot move {src} tensors (MindSpore's CPU "
                            "collectives take float16/32/64 and integer tensors)")
        a = a.astype(np.int32)
    return np.ascontiguousarray(a.reshape(-1) if a.ndim == 0 else a), src


def all_gather(a: np.ndarray, group: str, n: int) -> np.ndarray:
    """Every rank's ``a`` stacked: shape ``(n, *a.shape)``, rank order."""
    m, src = _movable(a)
    out = _prim("allgather", group)(ms.Tensor(m)).asnumpy()
    return out.reshape((n,) + a.shape).astype(src, copy=False)


def all_reduce(a: np.ndarray, op: str, group: str, n: int) -> np.ndarray:
    """``op`` ("sum", "prod", "max", "min", "band", "bor", "bxor") of every rank's ``a``."""
    native = op in ("sum", "prod", "max", "min")
    if native and (not _cpu() or (op == "sum" and a.dtype in _CPU_SUMMABLE)):
        m = np.ascontiguousarray(a.reshape(-1) if a.ndim == 0 else a)
        return _prim("allreduce", op, group)(ms.Tensor(m)).asnumpy().reshape(a.shape)
    return REDUCERS[op](all_gather(a, group, n)).astype(a.dtype, copy=False)


def broadcast(a: np.ndarray, root: int, group: str) -> np.ndarray:
    """Rank ``root``'s ``a`` (``root`` is the rank within ``group``)."""
    m, src = _movable(a)
    out = _prim("broadcast", root, group)((ms.Tensor(m),))[0].asnumpy()
    return out.reshape(a.shape).astype(src, copy=False)
