"""The RPC agent: named workers that send requests to each other and answer them.

Transport: the standard library's ``multiprocessing.connection`` (length-framed
messages over TCP, HMAC-authenticated with the job's key).  Rendezvous: rank 0
listens at ``MASTER_ADDR:MASTER_PORT`` (one port higher under MindSpore's
launcher, whose scheduler holds ``MASTER_PORT``); every worker opens its own
listener on an ephemeral port of the interface that reaches the master and
tells rank 0 its name and address; rank 0 answers everyone with the table.
The rendezvous connections stay open for ``shutdown``'s barrier.

The job's key is ``MSNB_RPC_AUTHKEY`` when it is set, else derived from the
rendezvous address and world size (any process that knows those can join:
set the variable where other users share the machine).

Requests run on the callee in a thread pool of ``num_worker_threads``; the
pool threads and the thread that called ``init_rpc`` share one gate (see
``futures._gate``), as MindSpore's runtime is not thread-safe.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import socket
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Client, Listener

from ...futures import Future
from ...futures._gate import GATE
from . import _wire

__all__ = ["Agent", "WorkerInfo", "current", "RemoteError"]

_AGENT = [None]


def current():
    """The running agent, or RuntimeError as PyTorch says it."""
    agent = _AGENT[0]
    if agent is None:
        raise RuntimeError("RPC has not been initialized. Call torch.distributed.rpc.init_rpc first.")
    return agent


class WorkerInfo:
    """msnb implementation of ``torch.distributed.rpc.WorkerInfo``: a worker's ``name`` and ``id`` (rank)."""

    __slots__ = ("name", "id")

    def __init__(self, name: str, id: int):  # noqa: A002 - PyTorch's name
        self.name, self.id = name, int(id)

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, name={self.name})"

    def __eq__(self, other):
        return isinstance(other, WorkerInfo) and (self.name, self.id) == (other.name, other.id)

    def __hash__(self):
        return hash((self.name, self.id))

    def __reduce__(self):
        return (WorkerInfo, (self.name, self.id))


class RemoteError:
    """An exception raised on the callee, carried back to be re-raised with its traceback text."""

    def __init__(self, exc: BaseException, where: WorkerInfo):
        self.type = type(exc)
        self.msg = f"On {where}:\n{exc!r}\n{''.join(traceback.format_exception(exc))}"

    def exception(self) -> BaseException:
        try:
            exc = self.type(self.msg)
        except Exception:  # noqa: BLE001 - a type that takes other arguments
            exc = RuntimeError(self.msg)
        exc._msnb_remote = self  # passed on as it is when it travels again (RRef values, async results)
        return exc


def _job_key(addr: str, port: int, world_size: int) -> bytes:
    key = os.environ.get("MSNB_RPC_AUTHKEY")
    if key:
        return key.encode()
    return hashlib.sha256(f"msnb-rpc|{addr}|{port}|{world_size}".encode()).digest()


def _local_host(master: str) -> str:
    """The address of this machine's interface that reaches the master."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((master, 9))  # UDP connect sends nothing: it only picks the route
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def _connect(address, key, deadline, what):
    while True:
        try:
            return Client(address, authkey=key)
        except (ConnectionRefusedError, FileNotFoundError, socket.timeout, OSError) as e:
            if time.monotonic() > deadline:
                raise RuntimeError(f"RPC: could not reach {what} at {address[0]}:{address[1]} ({e})") from None
            time.sleep(0.05)


class _Peer:
    """This worker's connection to one other worker: requests out, responses in."""

    def __init__(self, agent, info: WorkerInfo, address):
        self.agent, self.info, self.address = agent, info, address
        self.conn = None
        self.lock = threading.Lock()

    def send(self, data: bytes):
        with self.lock:
            if self.conn is None:
                self.conn = _connect(self.address, self.agent.key, time.monotonic() + 60, self.info)
                threading.Thread(target=self.agent._read_responses, args=(self,), daemon=True,
                                 name=f"msnb-rpc-from-{self.info.name}").start()
            self.conn.send_bytes(data)

    def close(self):
        with self.lock:
            if self.conn is not None:
                self.conn.close()


class Agent:
    """One worker's RPC endpoint (made by ``init_rpc``)."""

    def __init__(self, name, rank, world_size, options):
        self.name, self.rank, self.world_size = name, rank, world_size
        self.timeout = float(options.rpc_timeout)
        self.me = WorkerInfo(name, rank)
        addr, port = _rendezvous_address(options.init_method)
        self.key = _job_key(addr, port, world_size)
        self.pool = ThreadPoolExecutor(max_workers=max(1, int(options.num_worker_threads)),
                                       thread_name_prefix=f"msnb-rpc-{name}")
        self.listener = Listener((_local_host(addr), 0), authkey=self.key)
        self.ids = itertools.count()
        self.pending: dict[int, tuple] = {}  # msg id -> (Future, deadline, peer rank)
        self.plock = threading.Lock()
        self.owned: dict = {}  # rref id -> Future of the value this worker owns
        self.olock = threading.Lock()
        self.closing = False
        self._incoming = []
        threading.Thread(target=self._accept, daemon=True, name=f"msnb-rpc-accept-{name}").start()
        try:
            self.workers, self.rdv = _join(addr, port, self.key, self.me, self.listener.address, world_size)
        except BaseException:
            self.closing = True  # nothing stays open after a failed rendezvous
            self.listener.close()
            self.pool.shutdown(wait=False)
            raise
        self.by_name = {w.name: w for w, _ in self.workers.values()}
        self.peers = {r: _Peer(self, w, a) for r, (w, a) in self.workers.items()}
        threading.Thread(target=self._watch_deadlines, daemon=True, name=f"msnb-rpc-timeouts-{name}").start()

    # --- naming ----------------------------------------------------------------------------

    def info(self, to) -> WorkerInfo:
        if isinstance(to, WorkerInfo):
            return to
        if isinstance(to, int):
            if to not in self.workers:
                raise RuntimeError(f"Unknown destination worker id {to}")
            return self.workers[to][0]
        if isinstance(to, str):
            if to not in self.by_name:
                raise RuntimeError(f"name:{self.name},rank:{self.rank} could not find destination name {to}")
            return self.by_name[to]
        raise TypeError(f"to must be a worker name, id or WorkerInfo, got {type(to).__name__}")

    # --- caller side -----------------------------------------------------------------------

    def request(self, to: WorkerInfo, kind: str, payload, ctx_id=None, timeout=-1.0) -> Future:
        """Send one request; the returned future completes with the response."""
        if self.closing and kind not in ("release", "shutdown"):
            raise RuntimeError("RPC is shutting down: no new requests")
        timeout = self.timeout if timeout is None or timeout < 0 else float(timeout)
        msg_id = next(self.ids)
        fut = Future()
        deadline = time.monotonic() + timeout if timeout > 0 else None
        with self.plock:
            self.pending[msg_id] = (fut, deadline, to.id, timeout)
        with GATE.holding():
            data = _frame(ctx_id, self.rank, _wire.dumps(("req", msg_id, self.rank, kind, ctx_id, payload), ctx_id, to.id))
        try:
            self.peers[to.id].send(data)
        except (OSError, EOFError) as e:
            self._fail(msg_id, RuntimeError(f"RPC to {to} failed: {e}"))
        return fut

    def _fail(self, msg_id, error):
        with self.plock:
            entry = self.pending.pop(msg_id, None)
        if entry is not None:
            entry[0].set_exception(error)

    def _read_responses(self, peer: _Peer):
        conn = peer.conn
        while True:
            try:
                data = conn.recv_bytes()
            except (EOFError, OSError):
                break
            try:
                with GATE.holding():
                    _, msg_id, status, _ctx, payload = _unframe(data)
            except Exception as e:  # noqa: BLE001 - say it; the caller's future times out
                print(f"msnb rpc: a response from {peer.info} could not be read: {e!r}", file=sys.stderr)
                continue
            with self.plock:
                entry = self.pending.pop(msg_id, None)
            if entry is None:
                continue  # timed out already
            if status == "ok":
                entry[0].set_result(payload)
            else:
                entry[0].set_exception(payload.exception())
        with self.plock:
            lost = [m for m, e in self.pending.items() if e[2] == peer.info.id]
        for m in lost:
            self._fail(m, RuntimeError(f"RPC connection to {peer.info} was lost (the worker exited or died)"))

    def _watch_deadlines(self):
        while not self.closing:
            time.sleep(0.2)
            now = time.monotonic()
            with self.plock:
                late = [(m, e[3]) for m, e in self.pending.items() if e[1] is not None and e[1] < now]
            for m, t in late:
                self._fail(m, RuntimeError(f"RPC ran for more than set timeout ({int(t * 1000)} ms) and will now "
                                           "be marked with an error"))

    # --- callee side -----------------------------------------------------------------------

    def _accept(self):
        while True:
            try:
                conn = self.listener.accept()
            except Exception:  # noqa: BLE001 - a client without the job's key (AuthenticationError), or closed
                if self.closing:
                    return
                continue
            self._incoming.append(conn)
            threading.Thread(target=self._read_requests, args=(conn, threading.Lock()), daemon=True,
                             name=f"msnb-rpc-serve-{self.name}").start()

    def _read_requests(self, conn, send_lock):
        while True:
            try:
                data = conn.recv_bytes()
            except (EOFError, OSError):
                return
            self.pool.submit(self._serve, conn, send_lock, data)

    def _serve(self, conn, send_lock, data):
        from . import _handle
        msg_id, caller, ctx_id = None, None, None
        with GATE.holding():
            try:
                _, msg_id, caller, kind, ctx_id, payload = _unframe(data)
                result = _handle(self, caller, kind, ctx_id, payload)
            except BaseException as e:  # noqa: BLE001 - every error goes back to the caller
                if msg_id is None:
                    print(f"msnb rpc: a request could not be read: {e!r}", file=sys.stderr)
                    return
                result = _Error(RemoteError(e, self.me))
        if isinstance(result, Future):  # async_execution: answer when it completes
            result.add_done_callback(lambda f: self._answer_future(conn, send_lock, msg_id, ctx_id, caller, f))
        else:
            self._answer(conn, send_lock, msg_id, ctx_id, caller, result)

    def _answer_future(self, conn, send_lock, msg_id, ctx_id, caller, fut):
        try:
            result = fut.value()
        except BaseException as e:  # noqa: BLE001
            result = _Error(getattr(e, "_msnb_remote", None) or RemoteError(e, self.me))
        self._answer(conn, send_lock, msg_id, ctx_id, caller, result)

    def _answer(self, conn, send_lock, msg_id, ctx_id, caller, result):
        status, value = ("err", result.error) if isinstance(result, _Error) else ("ok", result)
        with GATE.holding():
            try:
                body = _wire.dumps(("resp", msg_id, status, ctx_id, value), ctx_id, caller)
            except BaseException as e:  # noqa: BLE001 - an unpicklable result
                body = _wire.dumps(("resp", msg_id, "err", ctx_id, RemoteError(e, self.me)), None, caller)
        try:
            with send_lock:
                conn.send_bytes(_frame(ctx_id, self.rank, body))
        except (OSError, EOFError):
            pass  # the caller is gone; its side reports the lost connection

    # --- shutdown --------------------------------------------------------------------------

    def outstanding(self) -> list:
        with self.plock:
            return [e[0] for e in self.pending.values()]

    def barrier(self):
        """Every worker has reached shutdown (over the rendezvous connections)."""
        with GATE.released():
            if self.rank == 0:
                for conn in self.rdv.values():
                    conn.recv()
                for conn in self.rdv.values():
                    conn.send("go")
            else:
                self.rdv.send("ready")
                self.rdv.recv()

    def close(self):
        self.closing = True
        for p in self.peers.values():
            p.close()
        for c in self._incoming:
            c.close()
        self.listener.close()
        if self.rank == 0:
            for c in self.rdv.values():
                c.close()
        else:
            self.rdv.close()
        self.pool.shutdown(wait=False, cancel_futures=True)


class _Error:
    def __init__(self, error: RemoteError):
        self.error = error


def _frame(ctx_id, src: int, body: bytes) -> bytes:
    """A message: its autograd context and sender first, so that the body's tensors are read into that context."""
    head = f"{'' if ctx_id is None else ctx_id}|{src}".encode()
    return len(head).to_bytes(4, "little") + head + body


def _unframe(data: bytes):
    n = int.from_bytes(data[:4], "little")
    ctx, src = data[4:4 + n].decode().split("|")
    return _wire.loads(data[4 + n:], int(ctx) if ctx else None, int(src))


def _rendezvous_address(init_method: str):
    if init_method.startswith("tcp://"):
        host, _, port = init_method[len("tcp://"):].rstrip("/").rpartition(":")
        return host or "127.0.0.1", int(port)
    if not init_method.startswith("env://"):
        raise ValueError(f"init_method {init_method!r} is not supported by msnb yet: use env:// or tcp://host:port")
    addr, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    for var, val in (("MASTER_ADDR", addr), ("MASTER_PORT", port)):
        if not val:
            raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                             f"{var} expected, but not set")
    port = int(port)
    if os.environ.get("MS_SCHED_PORT") == str(port):
        port += 1  # msrun's scheduler listens at MASTER_PORT
    return addr, port


def _join(addr, port, key, me: WorkerInfo, my_address, world_size):
    """Rank 0 collects every worker's (info, address) and sends the table back."""
    deadline = time.monotonic() + float(os.environ.get("MSNB_RPC_INIT_TIMEOUT", "300"))
    if me.id == 0:
        try:
            listener = Listener((addr, port), authkey=key)
        except OSError as e:
            raise RuntimeError(f"The server socket has failed to listen on {addr}:{port} ({e})") from None
        table = {0: (me, my_address)}
        conns = {}
        errors = []
        with listener:
            while len(conns) < world_size - 1:
                try:
                    conn = _accept_before(listener, deadline)
                except TimeoutError:
                    raise RuntimeError(f"RPC rendezvous timed out: {len(conns) + 1} of {world_size} workers "
                                       "joined") from None
                if conn is None:
                    continue
                info, address = conn.recv()
                if info.id in table or info.id >= world_size or info.id < 0:
                    errors.append(f"rank {info.id} ({info.name}) is invalid or joined twice")
                elif any(w.name == info.name for w, _ in table.values()):
                    errors.append(f"worker name {info.name} is used by two workers")
                table[info.id] = (info, address)
                conns[info.id] = conn
        reply = ("error", "; ".join(errors)) if errors else ("ok", table)
        for c in conns.values():
            c.send(reply)
        if errors:
            raise RuntimeError(f"RPC rendezvous failed: {reply[1]}")
        return table, conns
    conn = _connect((addr, port), key, deadline, "the RPC master (rank 0)")
    conn.send((me, my_address))
    status, table = conn.recv()
    if status != "ok":
        raise RuntimeError(f"RPC rendezvous failed: {table}")
    return table, conn


def _accept_before(listener, deadline):
    """One authenticated connection, or None for a client that failed the key; TimeoutError past deadline."""
    got = []

    def accept():
        try:
            got.append(listener.accept())
        except Exception:  # noqa: BLE001 - authentication failure
            got.append(None)

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    t.join(max(0.0, deadline - time.monotonic()))
    if not got:
        raise TimeoutError
    return got[0]
