"""``torch.distributed.rpc`` in a world of one worker, in this process (fast): calls to itself,
RRefs, errors and timeouts, the job key, and distributed autograd through an RPC boundary.

The 2-worker program in ``test_rpc_two_workers.py`` compares the same API with real PyTorch."""

from __future__ import annotations

import pickle
import socket
import time
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client

import pytest

import msnb.adapter.torch as torch
import msnb.adapter.torch.distributed.autograd as dist_autograd
import msnb.adapter.torch.distributed.rpc as rpc
from msnb.adapter.torch.distributed.optim import DistributedOptimizer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module", autouse=True)
def solo():
    options = rpc.TensorPipeRpcBackendOptions(init_method=f"tcp://127.0.0.1:{_free_port()}", rpc_timeout=60)
    rpc.init_rpc("solo", rank=0, world_size=1, rpc_backend_options=options)
    yield
    rpc.shutdown()
    with pytest.raises(RuntimeError, match="RPC has not been initialized"):
        rpc.get_worker_info()


def triple(x):
    return x * 3


def fails():
    raise KeyError("missing thing")


@rpc.functions.async_execution
def deferred(x):
    return _done(x + 1)


def _done(value):
    fut = torch.futures.Future()
    fut.set_result(value)
    return fut


def test_calls_to_itself():
    assert rpc.is_available() and dist_autograd.is_available()
    assert rpc.get_worker_info().name == "solo" and rpc.get_worker_info("solo").id == 0
    assert rpc.rpc_sync("solo", triple, args=(torch.tensor([1.0, 2.0]),)).tolist() == [3.0, 6.0]
    assert rpc.rpc_async(0, triple, args=(4,)).then(lambda f: f.value() + 1).wait() == 13
    assert rpc.rpc_sync(rpc.get_worker_info(), deferred, args=(1,)) == 2
    rref = rpc.remote("solo", triple, args=(torch.ones(2),))
    assert rref.is_owner() and rref.owner_name() == "solo"
    assert rref.to_here().tolist() == rref.local_value().tolist() == [3.0, 3.0]
    assert rpc.get_rpc_timeout() == 60


def test_remote_errors_keep_their_type_and_the_remote_traceback():
    with pytest.raises(KeyError) as e:
        rpc.rpc_sync("solo", fails)
    assert "On WorkerInfo(id=0, name=solo)" in str(e.value) and "in fails" in str(e.value)
    with pytest.raises(KeyError, match="missing thing"):
        rpc.remote("solo", fails).to_here()


def test_a_call_that_outlives_its_timeout_fails_and_the_worker_goes_on():
    with pytest.raises(RuntimeError, match=r"ran for more than set timeout \(300 ms\)"):
        rpc.rpc_sync("solo", time.sleep, args=(1.5,), timeout=0.3)
    assert rpc.rpc_sync("solo", triple, args=(2,)) == 6


def test_bad_arguments_are_refused():
    with pytest.raises(RuntimeError, match="could not find destination name nobody"):
        rpc.rpc_sync("nobody", triple, args=(1,))
    with pytest.raises(TypeError):
        rpc.rpc_async("solo", 5)
    with pytest.raises(RuntimeError, match="already initialized"):
        rpc.init_rpc("again", rank=0, world_size=1)
    with pytest.raises(ValueError, match="Worker name must match"):
        rpc.init_rpc("bad name!", rank=0, world_size=1)
    with pytest.raises(RuntimeError, match="not picklable"):
        pickle.dumps(rpc.RRef(1))


def test_a_client_without_the_job_key_is_refused_and_serving_goes_on():
    from msnb.adapter.torch.distributed.rpc._agent import current
    with pytest.raises(AuthenticationError):
        Client(current().listener.address, authkey=b"not the job key")
    assert rpc.rpc_sync("solo", triple, args=(5,)) == 15


def test_distributed_autograd_through_an_rpc_boundary():
    """w -> rpc(triple) -> (y * w).sum(): the gradient 3*w + y = 6*w reaches w in the context, not w.grad."""
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    with dist_autograd.context() as cid:
        assert cid >> 48 == 0  # PyTorch's layout: the worker id, then a counter
        with pytest.raises(RuntimeError, match="Already have an autograd context"):
            dist_autograd.context().__enter__()
        y = rpc.rpc_sync("solo", triple, args=(w,))
        assert y.requires_grad
        loss = (y * w).sum()
        dist_autograd.backward(cid, [loss])
        grads = dist_autograd.get_gradients(cid)
        assert list(grads) == [w]
        assert grads[w].tolist() == [6.0, -12.0]
        assert w.grad is None
        opt = DistributedOptimizer(torch.optim.SGD, [rpc.RRef(w)], lr=0.5)
        opt.step(cid)
        assert w.tolist() == [-2.0, 4.0]
        assert w.grad is None
    with pytest.raises(RuntimeError, match="Could not find autograd context"):
        dist_autograd.get_gradients(cid)
    with pytest.raises(RuntimeError, match="Could not find autograd context"):
        opt.step(cid)


def test_outside_a_context_tensors_arrive_without_history():
    """As in PyTorch: requires_grad travels, the graph does not."""
    w = torch.tensor([1.0], requires_grad=True)
    y = rpc.rpc_sync("solo", triple, args=(w,))
    assert y.requires_grad and y.grad_fn is None
