"""Point-to-point transfers (``send``/``recv``/``isend``/``irecv``) and ``all_to_all``, built on AllGather.

MindSpore 2.10 has no CPU kernel for ``Send``/``Receive``, but it has
AllGather, and a group may be any set of ranks.  So a transfer between ranks
``a`` and ``b`` is an AllGather within the group ``{a, b}`` (the world itself
when it has two ranks): both ranks take part, each contributes the bytes it
sends (none when it only receives) and takes the other's.  Only those two
ranks are involved, as with a real send.

Matching: PyTorch pairs the k-th send from ``a`` to ``b`` with the k-th
receive on ``b`` from ``a``.  msnb keeps each rank's pending transfers per
peer and runs them in rounds: round k carries this rank's k-th send and its
k-th receive for that peer, so the exchange pattern ``isend`` + ``irecv`` on
both ranks takes one round.  ``send``/``recv`` run at once (blocking, as in
PyTorch); ``isend``/``irecv`` run when their work is waited on (or at the next
blocking transfer with that peer, or ``destroy_process_group``): a program
must ``wait()`` the works it starts, which PyTorch requires before it reads
or reuses the buffers anyway.

``all_to_all`` gathers every rank's whole input list (world x the data of a
real all-to-all) and each rank keeps the chunks sent to it.
"""

from __future__ import annotations

import numpy as np

from . import _comm

__all__ = ["send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv", "all_to_all", "all_to_all_single",
           "flush_all"]

_PENDING: dict[int, list] = {}  # peer -> [("send" | "recv", tensor, work)]


def _d():
    import msnb.adapter.torch.distributed as dist
    return dist


def _bytes_of(t) -> np.ndarray:
    d = _d()
    return np.frombuffer(np.ascontiguousarray(d._array(t)).tobytes(), np.uint8)


def _into(t, data: np.ndarray, peer: int) -> None:
    d = _d()
    a = d._array(t)
    if data.size != a.nbytes:
        raise RuntimeError(f"recv: rank {peer} sent {data.size} bytes, the receiving tensor holds {a.nbytes} "
                           f"({tuple(a.shape)} {a.dtype})")
    d._write(t, np.frombuffer(data.tobytes(), a.dtype).reshape(a.shape))


def _pair_group(peer: int) -> tuple[str, int, int]:
    """(group name, this rank's index in it, size) for the pair {this rank, peer}."""
    d = _d()
    st = d._STATE
    me = st.rank
    if peer == me:
        raise ValueError(f"Invalid destination rank: destination rank should not be the same as the rank of the "
                         f"current process ({me}).")
    if not 0 <= peer < st.size:
        raise ValueError(f"rank {peer} is out of range for a world of {st.size} processes")
    lo, hi = sorted((me, peer))
    if st.size == 2:
        return st.world.name, me, 2
    name = f"msnb_p2p_{lo}_{hi}"
    made = st.__dict__.setdefault("p2p_groups", set())
    if name not in made:
        _comm.create_group(name, [lo, hi])
        made.add(name)
    return name, 0 if me == lo else 1, 2


def _exchange(peer: int, payload: np.ndarray) -> np.ndarray:
    """Send ``payload`` (bytes, maybe empty) to ``peer`` and return the bytes it sent in the same round."""
    d = _d()
    name, mine, _ = _pair_group(peer)
    sizes = _comm.all_gather(np.array([payload.size], np.int64), name, 2).reshape(-1)
    width = d._padded(int(sizes.max()))
    words = _comm.all_gather(d._as_words(payload, width), name, 2)
    other = 1 - mine
    return words[other].view(np.uint8)[:int(sizes[other])]


def _flush(peer: int) -> None:
    """Run every pending transfer with ``peer`` in rounds (k-th send with k-th receive)."""
    ops = _PENDING.pop(peer, [])
    sends = [op for op in ops if op[0] == "send"]
    recvs = [op for op in ops if op[0] == "recv"]
    for k in range(max(len(sends), len(recvs))):
        payload = _bytes_of(sends[k][1]) if k < len(sends) else np.zeros(0, np.uint8)
        got = _exchange(peer, payload)
        if k < len(recvs):
            _into(recvs[k][1], got, peer)
    for _, _, work in ops:
        work._done = True


def flush_all() -> None:
    for peer in sorted(_PENDING):
        _flush(peer)


class _P2PWork:
    """The handle of ``isend``/``irecv``: the transfer runs when it is waited on."""

    def __init__(self, peer: int, tensor):
        self._peer, self._tensor, self._done = peer, tensor, False

    def wait(self, timeout=None) -> bool:
        if not self._done:
            _flush(self._peer)
        return True

    def is_completed(self) -> bool:
        return self._done

    def is_success(self) -> bool:
        return self._done

    def result(self):
        return [self._tensor]


def _global(group, rank, group_rank, name):
    d = _d()
    g = d._group(group)
    if g is None:
        return None
    if group_rank is not None:
        return g.ranks[group_rank]
    if rank is None:
        raise ValueError(f"{name}: give the peer rank (msnb cannot receive from any source: pass src=)")
    return int(rank)


def _queue(kind: str, tensor, peer: int) -> _P2PWork:
    d = _d()
    d._array(tensor)  # a tensor, or TypeError now
    _pair_group(peer)  # a valid peer, or ValueError now
    work = _P2PWork(peer, tensor)
    _PENDING.setdefault(peer, []).append((kind, tensor, work))
    return work


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """msnb implementation of ``torch.distributed.isend`` (runs when waited on; see the module docstring)."""
    peer = _global(group, dst, group_dst, "isend")
    return None if peer is None else _queue("send", tensor, peer)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """msnb implementation of ``torch.distributed.irecv`` (runs when waited on; ``src`` is required)."""
    peer = _global(group, src, group_src, "irecv")
    return None if peer is None else _queue("recv", tensor, peer)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """msnb implementation of ``torch.distributed.send`` (blocking)."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """msnb implementation of ``torch.distributed.recv`` (blocking; ``src`` is required); returns ``src``."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._peer


class P2POp:
    """``torch.distributed.P2POp``: one ``isend``/``irecv`` for :func:`batch_isend_irecv`."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = \
            op, tensor, peer, group, tag, group_peer


def batch_isend_irecv(p2p_op_list):
    """msnb implementation of ``torch.distributed.batch_isend_irecv``: the works of every op."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


def _chunks(tensors) -> tuple[np.ndarray, np.ndarray]:
    parts = [_bytes_of(t) for t in tensors]
    return (np.concatenate(parts) if parts else np.zeros(0, np.uint8)), np.array([p.size for p in parts], np.int64)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """msnb implementation of ``torch.distributed.all_to_all``: rank j gets ``input_tensor_list[j]`` of every rank."""
    d = _d()
    g = d._group(group)
    if g is None:
        return None
    n = g.size()
    if len(input_tensor_list) != n or len(output_tensor_list) != n:
        raise ValueError(f"all_to_all: the lists need one tensor per rank of the group ({n})")
    blob, sizes = _chunks(input_tensor_list)
    if d._STATE.single or n == 1:
        all_sizes, blobs = sizes[None], [blob]
    else:
        all_sizes = _comm.all_gather(sizes, g.name, n)
        width = d._padded(int(all_sizes.sum(axis=1).max()))
        words = _comm.all_gather(d._as_words(blob, width), g.name, n)
        blobs = [words[i].view(np.uint8) for i in range(n)]
    me = g.rank()
    for i in range(n):
        start = int(all_sizes[i][:me].sum())
        _into(output_tensor_list[i], blobs[i][start:start + int(all_sizes[i][me])], g.ranks[i])
    return d._done(async_op, output_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,  # noqa: A002
                      group=None, async_op=False):
    """msnb implementation of ``torch.distributed.all_to_all_single`` (splits along dim 0)."""
    d = _d()
    g = d._group(group)
    if g is None:
        return None
    n = g.size()
    ins = list(input.split(list(input_split_sizes) if input_split_sizes else input.shape[0] // n))
    outs_view = list(output.split(list(output_split_sizes) if output_split_sizes else output.shape[0] // n))
    outs = [o.detach().clone() for o in outs_view]
    all_to_all(outs, ins, group)
    import msnb.adapter.torch as torch
    with torch.no_grad():
        output.copy_(torch.cat(outs).reshape(output.shape))
    return d._done(async_op, [output])
