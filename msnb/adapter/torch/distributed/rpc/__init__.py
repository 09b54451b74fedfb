"""msnb implementation of ``torch.distributed.rpc``: named workers calling
functions on each other, remote references (``RRef``) and futures.

Workers find each other through ``MASTER_ADDR`` / ``MASTER_PORT`` (or
``init_method="tcp://host:port"``) and talk over the standard library's
``multiprocessing.connection`` (see ``_agent``); tensors travel as numpy
payloads (``_wire``).  It works for processes started any way: separately,
by ``torch.multiprocessing.spawn``, or by ``msnb launch``.

Differences from PyTorch's TensorPipe agent, all stated in the registry:
one thread at a time runs torch code in a worker (MindSpore's runtime is not
thread-safe); an owner keeps the values of its RRefs until ``shutdown``
(PyTorch counts references and frees them earlier); a function that returns a
``torch.futures.Future`` is answered when that future completes, decorated
with ``functions.async_execution`` or not; device maps are not used (CPU).
"""

from __future__ import annotations

import itertools
import re
import threading

from ...futures import Future
from ...futures._gate import GATE
from . import functions
from ._agent import Agent, WorkerInfo, current

__all__ = ["init_rpc", "shutdown", "rpc_sync", "rpc_async", "remote", "RRef", "get_worker_info", "WorkerInfo",
           "TensorPipeRpcBackendOptions", "RpcBackendOptions", "BackendType", "is_available", "get_rpc_timeout",
           "functions"]

_NAME = re.compile(r"^[A-Za-z0-9_:\-]+$")
_LOCK = threading.Lock()


class BackendType:
    """``torch.distributed.rpc.BackendType``: ``TENSORPIPE`` (msnb's one agent stands for it)."""

    TENSORPIPE = "TENSORPIPE"


class RpcBackendOptions:
    """``torch.distributed.rpc.RpcBackendOptions``: ``rpc_timeout`` (seconds) and ``init_method``."""

    def __init__(self, rpc_timeout: float = 60.0, init_method: str = "env://"):
        self.rpc_timeout = float(rpc_timeout)
        self.init_method = init_method


class TensorPipeRpcBackendOptions(RpcBackendOptions):
    """msnb implementation of ``torch.distributed.rpc.TensorPipeRpcBackendOptions``.

    ``num_worker_threads`` sizes the callee's thread pool; ``device_maps`` and
    ``devices`` are kept but not used (tensors travel through host memory);
    ``_transports`` / ``_channels`` are ignored."""

    def __init__(self, *, num_worker_threads: int = 16, rpc_timeout: float = 60.0, init_method: str = "env://",
                 device_maps=None, devices=None, _transports=None, _channels=None):
        super().__init__(rpc_timeout, init_method)
        self.num_worker_threads = int(num_worker_threads)
        self.device_maps = dict(device_maps or {})
        self.devices = list(devices or [])

    def set_device_map(self, to: str, device_map: dict):
        self.device_maps.setdefault(to, {}).update(device_map)

    def set_devices(self, devices: list):
        self.devices = list(devices)


def is_available() -> bool:
    return True


def init_rpc(name, backend=None, rank=-1, world_size=None, rpc_backend_options=None):
    """msnb implementation of ``torch.distributed.rpc.init_rpc``: join the job as worker ``name``."""
    import os

    from . import _agent
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"Worker name must match ^[A-Za-z0-9-_:]*$, but got {name!r}")
    if rank is None or rank < 0:
        rank = int(os.environ.get("RANK", "-1"))
        if rank < 0:
            raise ValueError("init_rpc: rank is not given and the RANK environment variable is not set")
    if world_size is None:
        world_size = int(os.environ.get("WORLD_SIZE", "-1"))
        if world_size < 1:
            raise ValueError("init_rpc: world_size is not given and the WORLD_SIZE environment variable is not set")
    if not 0 <= rank < world_size:
        raise ValueError(f"init_rpc: rank {rank} is out of range for world_size {world_size}")
    options = rpc_backend_options if rpc_backend_options is not None else TensorPipeRpcBackendOptions()
    with _LOCK:
        if _agent._AGENT[0] is not None:
            raise RuntimeError("RPC is already initialized")
        agent = Agent(name, int(rank), int(world_size), options)
        _agent._AGENT[0] = agent
    GATE.acquire()  # the caller's thread runs torch code from now on; pool threads wait for their turn


def shutdown(graceful=True, timeout=0):
    """msnb implementation of ``torch.distributed.rpc.shutdown``: with ``graceful`` (the default),
    wait for this worker's outstanding work and for every worker to reach shutdown."""
    from . import _agent
    agent = current()
    try:
        if graceful:
            for fut in agent.outstanding():
                try:
                    fut.wait()
                except Exception:  # noqa: BLE001 - its caller sees the error; shutdown goes on
                    pass
            agent.barrier()
    finally:
        agent.close()
        _agent._AGENT[0] = None
        if GATE.held():
            GATE.release()


def get_worker_info(worker_name=None) -> WorkerInfo:
    """msnb implementation of ``torch.distributed.rpc.get_worker_info``."""
    agent = current()
    if worker_name is None:
        return agent.me
    if worker_name not in agent.by_name:
        raise RuntimeError(f"Unknown destination worker {worker_name}")
    return agent.by_name[worker_name]


def get_rpc_timeout() -> float:
    """The default RPC timeout in seconds."""
    return current().timeout


def _ctx():
    from ..autograd import _current_context_id
    return _current_context_id()


def rpc_async(to, func, args=None, kwargs=None, timeout=-1.0) -> Future:
    """msnb implementation of ``torch.distributed.rpc.rpc_async``: run ``func(*args, **kwargs)`` on ``to``."""
    agent = current()
    if not callable(func):
        raise TypeError(f"function should be callable, got {type(func).__name__}")
    return agent.request(agent.info(to), "call", (func, tuple(args or ()), dict(kwargs or {})), _ctx(), timeout)


def rpc_sync(to, func, args=None, kwargs=None, timeout=-1.0):
    """msnb implementation of ``torch.distributed.rpc.rpc_sync``: ``rpc_async(...).wait()``."""
    return rpc_async(to, func, args, kwargs, timeout).wait()


def remote(to, func, args=None, kwargs=None, timeout=-1.0) -> RRef:
    """msnb implementation of ``torch.distributed.rpc.remote``: run ``func`` on ``to`` and return an
    ``RRef`` to its result, which stays there."""
    agent = current()
    if not callable(func):
        raise TypeError(f"function should be callable, got {type(func).__name__}")
    owner = agent.info(to)
    rref = RRef._user(owner.id, (agent.rank, next(_RREF_IDS)))
    rref._created = agent.request(owner, "remote", (func, tuple(args or ()), dict(kwargs or {}), rref._id),
                                  _ctx(), timeout)
    return rref


_RREF_IDS = itertools.count()


class RRef:
    """msnb implementation of ``torch.distributed.rpc.RRef``: a reference to a value on its owner.

    ``RRef(value)`` makes this worker the owner; ``remote(...)`` returns one
    owned by the callee.  RRefs travel in RPC arguments and results as
    references; the value moves only with ``to_here()``."""

    def __init__(self, value, type_hint=None):
        agent = current()
        self._owner, self._id = agent.rank, (agent.rank, next(_RREF_IDS))
        self._created = None
        fut = Future()
        fut.set_result(value)
        with agent.olock:
            agent.owned[self._id] = fut

    @classmethod
    def _user(cls, owner: int, rref_id):
        self = cls.__new__(cls)
        self._owner, self._id, self._created = owner, rref_id, None
        return self

    def __reduce__(self):
        raise RuntimeError("RRef is not picklable outside RPC: pass it as an argument of an RPC instead")

    def __repr__(self):
        agent = current()
        kind = "OwnerRRef" if self.is_owner() else "UserRRef"
        return f"{kind}(RRefId = GloballyUniqueId(created_on={self._id[0]}, local_id={self._id[1]}), owner " \
               f"= {agent.info(self._owner)})"

    def owner(self) -> WorkerInfo:
        return current().info(self._owner)

    def owner_name(self) -> str:
        return self.owner().name

    def is_owner(self) -> bool:
        return self._owner == current().rank

    def confirmed_by_owner(self) -> bool:
        return self.is_owner() or self._created is None or self._created.done()

    def _owned_future(self) -> Future:
        return _owned(current(), self._id)

    def local_value(self):
        """The value, on its owner; elsewhere RuntimeError as PyTorch."""
        if not self.is_owner():
            raise RuntimeError("Cannot call localValue() on a non-local reference. Call it on "
                               f"{self.owner()}")
        return self._owned_future().wait()

    def to_here(self, timeout=-1.0):
        """The value, copied to this worker (blocks until the owner has it)."""
        if self.is_owner():
            return self._owned_future().wait()
        agent = current()
        return agent.request(self.owner(), "fetch", self._id, _ctx(), timeout).wait()

    def _get_future(self) -> Future:
        """Completes when the owner has confirmed the creation of this reference."""
        if self._created is not None:
            return self._created
        done = Future()
        done.set_result(None)
        return done

    def rpc_sync(self, timeout=-1.0):
        """``rref.rpc_sync().method(*args)`` runs ``method`` on the owner's value and returns the result."""
        return _Proxy(self, rpc_sync, timeout)

    def rpc_async(self, timeout=-1.0):
        """``rref.rpc_async().method(*args)`` returns a Future of the result."""
        return _Proxy(self, rpc_async, timeout)

    def remote(self, timeout=-1.0):
        """``rref.remote().method(*args)`` returns an RRef to the result, kept on the owner."""
        return _Proxy(self, remote, timeout)

    def backward(self, dist_autograd_ctx_id=-1, retain_graph=False):
        """Distributed backward from the value of this RRef (a scalar tensor)."""
        from .. import autograd as dist_autograd
        if self.is_owner():
            value = self.local_value()
            if dist_autograd_ctx_id == -1:
                value.backward(retain_graph=retain_graph)
                return
            dist_autograd.backward(dist_autograd_ctx_id, [value], retain_graph=retain_graph)
            return
        rpc_sync(self.owner(), _backward_on_owner, args=(self, dist_autograd_ctx_id, retain_graph))


def _backward_on_owner(rref, ctx_id, retain_graph):
    rref.backward(ctx_id, retain_graph)


class _Proxy:
    def __init__(self, rref, how, timeout):
        self._rref, self._how, self._timeout = rref, how, timeout

    def __getattr__(self, name):
        rref, how, timeout = self._rref, self._how, self._timeout

        def call(*args, **kwargs):
            return how(rref.owner(), _invoke_on_value, args=(rref, name, args, kwargs), timeout=timeout)

        return call


def _invoke_on_value(rref, name, args, kwargs):
    return getattr(rref.local_value(), name)(*args, **kwargs)


def _owned(agent, rref_id) -> Future:
    """The owner's future of an RRef's value (made on first mention: a fetch can come before the creation)."""
    with agent.olock:
        fut = agent.owned.get(rref_id)
        if fut is None:
            fut = agent.owned[rref_id] = Future()
        return fut


def _rref_from_wire(owner: int, rref_id):
    return RRef._user(owner, tuple(rref_id))


def _handle(agent, caller: int, kind: str, ctx_id, payload):
    """Run one request on this worker (a pool thread holding the gate)."""
    from .. import autograd as dist_autograd
    with dist_autograd._in_context(ctx_id):
        if kind == "call":
            func, args, kwargs = payload
            return func(*args, **kwargs)
        if kind == "remote":
            func, args, kwargs, rref_id = payload
            target = _owned(agent, rref_id)
            try:
                value = func(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - kept for to_here(), as PyTorch does
                from ._agent import RemoteError
                target.set_exception(RemoteError(e, agent.me).exception())
                return None
            if isinstance(value, Future):
                value.add_done_callback(lambda f: _settle(target, f))
            else:
                target.set_result(value)
            return None
        if kind == "fetch":
            src = _owned(agent, tuple(payload))
            out = Future()
            src.add_done_callback(lambda f: _settle(out, f))
            return out
        if kind == "backward":
            return dist_autograd._backward_request(caller, *payload)
        if kind == "release":
            dist_autograd._release(payload)
            return None
    raise RuntimeError(f"unknown RPC request kind {kind!r}")


def _settle(target: Future, source: Future):
    try:
        target.set_result(source.value())
    except Exception as e:  # noqa: BLE001
        target.set_exception(e)


from ._names import module_getattr_with as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributed.rpc")
