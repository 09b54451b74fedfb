"""msnb implementation of ``torch.distributed`` on MindSpore's communication engine.

Processes are started by MindSpore's launcher (``msnb launch``, built on
``msrun``), which gives every worker the cluster it joins;
``init_process_group`` then calls ``mindspore.communication.init()``.  Every
backend name PyTorch code passes (``gloo``, ``nccl``, ``hccl``, ``mccl``)
means "MindSpore's communication for this device": HCCL on Ascend, NCCL on
GPU, MCCL on CPU.  Without a launcher, a world of one process works (the
collectives return their input), as with PyTorch.

``async_op=True`` runs the collective before returning; the handle's
``wait()`` returns at once.  ``send``/``recv``/``isend``/``irecv`` and
``all_to_all`` are built on AllGather (see ``_p2p``).
"""

from __future__ import annotations

import io
import itertools
import os
from datetime import timedelta

import numpy as np

from . import _comm

__all__ = ["init_process_group", "is_initialized", "is_available", "is_mpi_available", "is_nccl_available",
           "is_gloo_available", "is_hccl_available", "is_torchelastic_launched", "get_rank", "get_world_size",
           "get_backend", "get_process_group_ranks", "get_global_rank", "get_group_rank", "barrier",
           "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter",
           "reduce_scatter_tensor", "reduce", "gather", "scatter", "new_group", "destroy_process_group",
           "broadcast_object_list", "all_gather_object", "gather_object", "ReduceOp", "Backend", "ProcessGroup",
           "GroupMember", "group", "Work", "send", "recv", "isend", "irecv", "all_to_all", "all_to_all_single",
           "P2POp", "batch_isend_irecv", "get_default_backend_for_device"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"
_BACKENDS = ("gloo", "nccl", "hccl", "mccl", "mpi", "ucc")


class ReduceOp:
    """``torch.distributed.ReduceOp``: ``ReduceOp.SUM`` etc."""

    class RedOpType:
        def __init__(self, name):
            self.name = name

        def __repr__(self):
            return f"<RedOpType.{self.name}>"

    SUM = RedOpType("SUM")
    AVG = RedOpType("AVG")
    PRODUCT = RedOpType("PRODUCT")
    MIN = RedOpType("MIN")
    MAX = RedOpType("MAX")
    BAND = RedOpType("BAND")
    BOR = RedOpType("BOR")
    BXOR = RedOpType("BXOR")
    PREMUL_SUM = RedOpType("PREMUL_SUM")


_OPS = {"SUM": "sum", "AVG": "sum", "PRODUCT": "prod", "MIN": "min", "MAX": "max", "BAND": "band", "BOR": "bor",
        "BXOR": "bxor"}


class Backend(str):
    """``torch.distributed.Backend``: the backend names; ``Backend("NCCL") == "nccl"``."""

    UNDEFINED, GLOO, NCCL, HCCL, MCCL, MPI, UCC = "undefined", "gloo", "nccl", "hccl", "mccl", "mpi", "ucc"
    #: PyTorch 2.13's answers of ``get_default_backend_for_device`` (every name means MindSpore's engine here)
    default_device_backend_map = {"cpu": "gloo", "cuda": "nccl", "xpu": "xccl", "mps": "gloo"}

    def __new__(cls, name: str):
        value = str(name).lower()
        names = [part.split(":")[-1] for part in value.split(",")]
        if not all(n in _BACKENDS for n in names):
            raise ValueError(f"Invalid backend: '{name}'")
        return super().__new__(cls, value)


class ProcessGroup:
    """A group of ranks (``new_group``'s result); MindSpore knows it by ``name``."""

    def __init__(self, ranks, name, backend):
        self.ranks, self.name, self._backend = list(ranks), name, backend

    def rank(self) -> int:
        return self.ranks.index(_STATE.rank) if _STATE.rank in self.ranks else -1

    def size(self) -> int:
        return len(self.ranks)

    def __repr__(self):
        return f"ProcessGroup(ranks={self.ranks})"


class GroupMember:
    """``torch.distributed.GroupMember``: ``WORLD`` and ``NON_GROUP_MEMBER``."""

    WORLD = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801 - PyTorch's name
    """``torch.distributed.group.WORLD``."""

    WORLD = None


class Work:
    """The handle ``async_op=True`` returns; the work is already done."""

    def __init__(self, result=None):
        self._result = result

    def wait(self, timeout=None) -> bool:
        return True

    def is_completed(self) -> bool:
        return True

    def is_success(self) -> bool:
        return True

    def result(self):
        return self._result

    def get_future(self):
        from concurrent.futures import Future
        f = Future()
        f.set_result(self._result)
        return f


class _State:
    def __init__(self):
        self.reset()

    def reset(self):
        self.initialized, self.single, self.rank, self.size, self.backend, self.world = False, True, 0, 1, None, None
        self.names = itertools.count()


_STATE = _State()


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return _STATE.initialized


def is_mpi_available() -> bool:
    return False


def is_nccl_available() -> bool:
    return True  # the name maps onto MindSpore's communication, like every backend name


is_gloo_available = is_hccl_available = is_nccl_available


def get_default_backend_for_device(device) -> str:
    """msnb implementation of ``torch.distributed.get_default_backend_for_device``: PyTorch's names."""
    torch = _torch()
    kind = device.type if isinstance(device, torch.device) else torch.device(device).type
    backend = Backend.default_device_backend_map.get(kind)
    if backend is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return backend


def is_torchelastic_launched() -> bool:
    return "TORCHELASTIC_RUN_ID" in os.environ


def _under_launcher() -> bool:
    """Started by msrun: a worker, or msrun's scheduler (its ``init()`` serves the cluster, then exits)."""
    return os.environ.get("MS_ROLE") in ("MS_WORKER", "MS_SCHED") and "MS_SCHED_PORT" in os.environ


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """msnb implementation of ``torch.distributed.init_process_group``."""
    if _STATE.initialized:
        raise ValueError("trying to initialize the default process group twice!")
    backend = Backend(backend) if backend is not None else Backend("gloo")
    if init_method is not None and store is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if init_method is not None and not (init_method.startswith("env://") or init_method.startswith("tcp://")):
        raise NotImplementedError(f"init_method={init_method!r} is not supported by msnb yet: use env:// or "
                                  f"tcp:// ({_SUPPORT})")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    if _under_launcher():
        _comm.init()
        size, me = _comm.world_size(), _comm.world_rank()
        if world_size not in (-1, None) and int(world_size) != size:
            raise ValueError(f"init_process_group(world_size={world_size}) but the launcher started {size} "
                             "processes")
        if rank not in (-1, None) and int(rank) != me:
            raise ValueError(f"init_process_group(rank={rank}) but MindSpore's launcher gave this process "
                             f"rank {me}")
        _STATE.single = False
        _STATE.world = ProcessGroup(range(size), _comm.world_group(), backend)
    else:
        size = int(world_size) if world_size not in (-1, None) else int(os.environ.get("WORLD_SIZE", "1"))
        me = int(rank) if rank not in (-1, None) else int(os.environ.get("RANK", "0"))
        if size != 1:
            raise RuntimeError(
                f"msnb runs a world of {size} processes on MindSpore's launcher: start the script with "
                f"`msnb launch --nproc-per-node {size} SCRIPT` (or MindSpore's msrun); without it only "
                "world_size=1 works")
        if me != 0:
            raise ValueError(f"rank {me} is out of range for a world of 1 process")
        _STATE.world = ProcessGroup([0], "msnb_single", backend)
    _STATE.rank, _STATE.size, _STATE.backend, _STATE.initialized = me, size, backend, True


def destroy_process_group(group=None):
    """msnb implementation of ``torch.distributed.destroy_process_group`` (the default group ends all)."""
    _require_init()
    if group is None or group is _STATE.world:
        from ._p2p import flush_all
        flush_all()  # isend/irecv nobody waited on still reach their peer
        if not _STATE.single:
            _comm.release()
        _STATE.reset()


def _require_init():
    if not _STATE.initialized:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


def _group(g) -> ProcessGroup | None:
    """The group to run on, or None when this rank is not in it."""
    _require_init()
    if g is None:
        return _STATE.world
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    return g if _STATE.rank in g.ranks else None


def get_rank(group=None) -> int:
    g = _group(group)
    return -1 if g is None else g.rank()


def get_world_size(group=None) -> int:
    g = _group(group)
    return -1 if g is None else g.size()


def get_backend(group=None) -> str:
    _require_init()
    return str(_STATE.backend)


def get_process_group_ranks(group) -> list:
    g = _group(group)
    return list(g.ranks) if g is not None else []


def get_global_rank(group, group_rank: int) -> int:
    return (_group(group) or _STATE.world).ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    g = _group(group) or _STATE.world
    if global_rank not in g.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {g}")
    return g.ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """msnb implementation of ``torch.distributed.new_group``: every rank calls it, as in PyTorch."""
    _require_init()
    ranks = sorted(set(range(_STATE.size) if ranks is None else (int(r) for r in ranks)))
    if any(r < 0 or r >= _STATE.size for r in ranks):
        raise ValueError(f"new_group: ranks {ranks} are not all in the world of {_STATE.size}")
    name = f"msnb_group_{next(_STATE.names)}"
    if ranks == _STATE.world.ranks:
        return ProcessGroup(ranks, _STATE.world.name, _STATE.backend)
    if _STATE.rank not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    if not _STATE.single and len(ranks) > 1:
        _comm.create_group(name, ranks)
    return ProcessGroup(ranks, name, _STATE.backend)


# --- tensors ------------------------------------------------------------------------------

def _torch():
    import msnb.adapter.torch as torch
    return torch


def _array(t) -> np.ndarray:
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"expected a torch.Tensor, got {type(t).__name__}")
    return t.detach().numpy()


def _write(t, arr: np.ndarray):
    torch = _torch()
    with torch.no_grad():
        t.copy_(torch.from_numpy(np.ascontiguousarray(arr)).reshape(t.shape))


def _done(async_op, result=None):
    return Work(result) if async_op else None


def _reduce_arrays(a: np.ndarray, op, g: ProcessGroup) -> np.ndarray:
    name = getattr(op, "name", str(op)).upper()
    if name not in _OPS:
        raise NotImplementedError(f"torch.distributed ReduceOp.{name} is not supported by msnb yet ({_SUPPORT})")
    if name in ("BAND", "BOR", "BXOR") and a.dtype.kind not in "biu":
        raise RuntimeError(f"ReduceOp.{name} needs an integer or bool tensor, got {a.dtype}")
    if name == "AVG" and a.dtype.kind not in "fc":
        raise RuntimeError(f"ReduceOp.AVG needs a floating-point tensor, got {a.dtype}")
    if _STATE.single or g.size() == 1:
        out = a
    else:
        out = _comm.all_reduce(a, _OPS[name], g.name, g.size())
    if name == "AVG":
        out = (out / g.size()).astype(a.dtype)
    return out


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """msnb implementation of ``torch.distributed.all_reduce`` (in place)."""
    g = _group(group)
    if g is None:
        return None
    _write(tensor, _reduce_arrays(_array(tensor), op, g))
    return _done(async_op, [tensor])


def _gather_arrays(a: np.ndarray, g: ProcessGroup) -> np.ndarray:
    if _STATE.single or g.size() == 1:
        return a[None]
    return _comm.all_gather(a, g.name, g.size())


def _root(g: ProcessGroup, src: int) -> int:
    if src not in g.ranks:
        raise ValueError(f"rank {src} is not part of the group {g}")
    return g.ranks.index(src)


def _bcast_array(a: np.ndarray, src: int, g: ProcessGroup) -> np.ndarray:
    root = _root(g, src)
    if _STATE.single or g.size() == 1:
        return a
    return _comm.broadcast(a, root, g.name)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """msnb implementation of ``torch.distributed.broadcast`` (``src`` is a global rank)."""
    g = _group(group)
    if g is None:
        return None
    src = g.ranks[group_src] if group_src is not None else src
    _write(tensor, _bcast_array(_array(tensor), src, g))
    return _done(async_op, [tensor])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """msnb implementation of ``torch.distributed.all_gather``."""
    g = _group(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of {g.size()}")
    for out, part in zip(tensor_list, _gather_arrays(_array(tensor), g)):
        _write(out, part)
    return _done(async_op, tensor_list)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """msnb implementation of ``torch.distributed.all_gather_into_tensor`` (concatenated or stacked)."""
    g = _group(group)
    if g is None:
        return None
    got = _gather_arrays(_array(input_tensor), g)
    if output_tensor.numel() != got.size:
        raise ValueError(f"all_gather_into_tensor: output has {output_tensor.numel()} elements, expected "
                         f"{got.size}")
    _write(output_tensor, got)
    return _done(async_op, [output_tensor])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002
    """msnb implementation of ``torch.distributed.reduce_scatter_tensor``."""
    g = _group(group)
    if g is None:
        return None
    a = _array(input)
    if a.shape[0] % g.size():
        raise ValueError(f"reduce_scatter_tensor: input dim 0 ({a.shape[0]}) is not divisible by the group "
                         f"size {g.size()}")
    reduced = _reduce_arrays(a, op, g)
    _write(output, np.split(reduced, g.size())[g.rank()])
    return _done(async_op, [output])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """msnb implementation of ``torch.distributed.reduce_scatter``."""
    g = _group(group)
    if g is None:
        return None
    if len(input_list) != g.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors for a group of {g.size()}")
    parts = [_array(t) for t in input_list]
    if any(p.shape != parts[0].shape for p in parts):
        raise NotImplementedError(f"reduce_scatter with tensors of different shapes is not supported by msnb "
                                  f"yet ({_SUPPORT})")
    reduced = _reduce_arrays(np.stack(parts), op, g)
    _write(output, reduced[g.rank()])
    return _done(async_op, [output])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """msnb implementation of ``torch.distributed.reduce``: ``dst`` gets the result."""
    g = _group(group)
    if g is None:
        return None
    dst = g.ranks[group_dst] if group_dst is not None else dst
    _root(g, dst)
    out = _reduce_arrays(_array(tensor), op, g)
    if _STATE.rank == dst:
        _write(tensor, out)
    return _done(async_op, [tensor])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """msnb implementation of ``torch.distributed.gather`` (MindSpore's AllGather; ``dst`` keeps it)."""
    g = _group(group)
    if g is None:
        return None
    dst = g.ranks[group_dst] if group_dst is not None else (0 if dst is None else dst)
    _root(g, dst)
    got = _gather_arrays(_array(tensor), g)
    if _STATE.rank == dst:
        if gather_list is None or len(gather_list) != g.size():
            raise ValueError("gather: the destination rank needs a gather_list of one tensor per rank")
        for out, part in zip(gather_list, got):
            _write(out, part)
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    return _done(async_op, gather_list)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """msnb implementation of ``torch.distributed.scatter`` (MindSpore's Broadcast of the stacked list)."""
    g = _group(group)
    if g is None:
        return None
    src = g.ranks[group_src] if group_src is not None else (0 if src is None else src)
    _root(g, src)
    shape = (g.size(),) + tuple(tensor.shape)
    if _STATE.rank == src:
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError("scatter: the source rank needs a scatter_list of one tensor per rank")
        stacked = np.stack([_array(t) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        stacked = np.zeros(shape, dtype=_array(tensor).dtype)
    _write(tensor, _bcast_array(stacked, src, g)[g.rank()])
    return _done(async_op, [tensor])


def barrier(group=None, async_op=False, device_ids=None):
    """msnb implementation of ``torch.distributed.barrier`` (a one-element AllReduce)."""
    g = _group(group)
    if g is None:
        return None
    if not _STATE.single and g.size() > 1:
        _comm.all_reduce(np.zeros(1, np.float32), "sum", g.name, g.size())
    return _done(async_op)


from ._p2p import P2POp, all_to_all, all_to_all_single, batch_isend_irecv, irecv, isend, recv, send  # noqa: E402


# --- Python objects: torch.save bytes, read back with torch.load(weights_only=True) -----

def _to_bytes(obj) -> np.ndarray:
    torch = _torch()
    buf = io.BytesIO()
    torch.save(obj, buf)
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def _from_bytes(data: np.ndarray):
    torch = _torch()
    return torch.load(io.BytesIO(data.astype(np.uint8).tobytes()), weights_only=True)


def _as_words(data: np.ndarray, length: int) -> np.ndarray:
    """Bytes padded to ``length`` (a multiple of 4) viewed as int32: MindSpore's CPU kernels move int32."""
    padded = np.zeros(length, np.uint8)
    padded[:data.size] = data
    return padded.view(np.int32)


def _padded(n: int) -> int:
    return max(4, (n + 3) // 4 * 4)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """msnb implementation of ``torch.distributed.broadcast_object_list``.

    The objects travel as ``torch.save`` bytes and are read with
    ``torch.load(weights_only=True)``: tensors, containers and plain values
    load; arbitrary classes are refused, so no rank runs another's code."""
    g = _group(group)
    if g is None:
        return None
    src = g.ranks[group_src] if group_src is not None else (0 if src is None else src)
    is_src = _STATE.rank == src
    data = _to_bytes(list(object_list)) if is_src else np.zeros(0, np.uint8)
    size = int(_bcast_array(np.array([data.size], np.int64), src, g)[0])
    words = _bcast_array(_as_words(data, _padded(size)), src, g)
    if not is_src:
        got = _from_bytes(words.view(np.uint8)[:size])
        object_list[:] = got[:len(object_list)]
    return None


def all_gather_object(object_list, obj, group=None):
    """msnb implementation of ``torch.distributed.all_gather_object`` (same safety as ``torch.load``)."""
    g = _group(group)
    if g is None:
        return None
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} entries for a group of "
                         f"{g.size()}")
    data = _to_bytes(obj)
    sizes = _gather_arrays(np.array([data.size], np.int64), g).reshape(-1)
    width = _padded(int(sizes.max()))
    words = _gather_arrays(_as_words(data, width), g)
    for i, (row, n) in enumerate(zip(words, sizes)):
        object_list[i] = _from_bytes(row.view(np.uint8)[:int(n)])  # own too: every rank accepts the same
    return None


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """msnb implementation of ``torch.distributed.gather_object`` (every rank gathers; ``dst`` keeps it)."""
    g = _group(group)
    if g is None:
        return None
    dst = g.ranks[group_dst] if group_dst is not None else (0 if dst is None else dst)
    _root(g, dst)
    everything = [None] * g.size()
    all_gather_object(everything, obj, group)
    if _STATE.rank == dst:
        if object_gather_list is None or len(object_gather_list) != g.size():
            raise ValueError("gather_object: the destination rank needs an object_gather_list of one entry per "
                             "rank")
        object_gather_list[:] = everything
    return None


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributed")
