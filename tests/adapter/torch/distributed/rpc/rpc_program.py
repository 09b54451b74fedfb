"""One 2-worker RPC program, run both with real PyTorch (the oracle) and with msnb.

    MSNB_RPC_LIB=torch|msnb python rpc_program.py OUT.json PORT

``torch.multiprocessing.spawn`` starts the workers as the pytorch/examples RPC
programs do; "trainer" (rank 0) writes what it saw to OUT.json: plain values,
RRef facts, error types and messages, and the losses of a parameter-server
training run with distributed autograd and ``DistributedOptimizer``.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

if os.environ.get("MSNB_RPC_LIB") == "msnb":
    import msnb.adapter.torch as torch
    import msnb.adapter.torch.distributed.autograd as dist_autograd
    import msnb.adapter.torch.distributed.rpc as rpc
    import msnb.adapter.torch.multiprocessing as mp
    from msnb.adapter.torch.distributed.nn import RemoteModule
    from msnb.adapter.torch.distributed.optim import DistributedOptimizer
else:
    import torch
    import torch.distributed.autograd as dist_autograd
    import torch.distributed.rpc as rpc
    import torch.multiprocessing as mp
    from torch.distributed.nn import RemoteModule
    from torch.distributed.optim import DistributedOptimizer

STEPS = 4


def _weights(shape, seed):
    return torch.tensor(np.random.default_rng(seed).uniform(-0.5, 0.5, shape).astype(np.float32))


def _linear(n_in, n_out, seed):
    lin = torch.nn.Linear(n_in, n_out)
    with torch.no_grad():
        lin.weight.copy_(_weights((n_out, n_in), seed))
        lin.bias.copy_(_weights((n_out,), seed + 1))
    return lin


class Server:
    """The parameter server's model (lives on "ps")."""

    def __init__(self):
        self.model = torch.nn.Sequential(_linear(4, 6, 10), torch.nn.Tanh(), _linear(6, 3, 20))
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.model(x)

    def param_rrefs(self):
        return [rpc.RRef(p) for p in self.model.parameters()]

    def grads(self, cid):
        return [g.tolist() for g in dist_autograd.get_gradients(cid).values()]

    def count(self):
        return self.calls


class Mixer(torch.nn.Module):
    """A module built on the ps by RemoteModule (deterministic weights)."""

    def __init__(self, n):
        super().__init__()
        self.lin = _linear(n, n, 70)

    def forward(self, h, scale=1.0):
        return torch.relu(self.lin(h)) * scale


class Counter:
    def __init__(self, start):
        self.value = start

    def add(self, n):
        self.value += n
        return self.value


def fails(kind):
    raise ValueError(f"remote failure {kind}")


def who():
    return rpc.get_worker_info().name


def add_then_scale(a, b, s):
    return (a + b) * s


def value_of(rref):
    return rref.to_here() * 2


@rpc.functions.async_execution
def later(x):
    fut = torch.futures.Future()
    fut.set_result(x + 100)
    return fut.then(lambda f: f.value() * 2)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return [type(e).__name__, str(e)]
    return None


def _train():
    """Trainer: local layer -> ps model (remote) -> RemoteModule on the ps -> local layer -> loss;
    distributed backward and step."""
    server = rpc.remote("ps", Server)
    mixer = RemoteModule("ps/cpu", Mixer, args=(3,))
    pre, post = _linear(5, 4, 30), _linear(3, 2, 40)
    params = server.rpc_sync().param_rrefs() + [rpc.RRef(p) for p in [*pre.parameters(), *post.parameters()]]
    params += mixer.remote_parameters()
    opt = DistributedOptimizer(torch.optim.SGD, params, lr=0.2, momentum=0.5)
    x = _weights((8, 5), 50) * 4
    y = torch.tensor(np.random.default_rng(60).integers(0, 2, 8))
    losses, grads_seen, local_grad_untouched = [], [], True
    for _ in range(STEPS):
        with dist_autograd.context() as cid:
            h = mixer(server.rpc_sync().forward(pre(x)), scale=1.5)
            loss = torch.nn.functional.cross_entropy(post(h), y)
            dist_autograd.backward(cid, [loss])
            grads_seen.append(len(server.rpc_sync().grads(cid)))
            local = dist_autograd.get_gradients(cid)
            local_grad_untouched &= pre.weight.grad is None
            grads_seen.append(len(local))
            opt.step(cid)
            losses.append(loss.item())
    final_pre = pre.weight.detach().numpy().ravel().tolist()
    mixed = mixer.forward_async(torch.ones(2, 3)).wait().tolist()
    refused = _err(mixer.parameters)
    return {"mixed": mixed, "refused": refused, "n_remote_params": len(mixer.remote_parameters()),"losses": losses, "grads_seen": grads_seen, "grad_untouched": bool(local_grad_untouched),
            "pre_weight": final_pre, "ps_calls": server.rpc_sync().count()}


def trainer():
    out = {}
    a, b = torch.arange(6.0).reshape(2, 3), torch.ones(2, 3)
    out["sync"] = rpc.rpc_sync("ps", add_then_scale, args=(a, b, 3)).tolist()
    out["builtin"] = rpc.rpc_sync("ps", torch.add, args=(a, b)).tolist()
    fut = rpc.rpc_async("ps", add_then_scale, args=(a, b), kwargs={"s": -1})
    out["async"] = fut.then(lambda f: f.value().sum()).wait().item()
    out["wait_all"] = [v.tolist() for v in torch.futures.wait_all(
        [rpc.rpc_async(1, add_then_scale, args=(a, b, k)) for k in range(3)])]
    out["who"] = [rpc.rpc_sync("ps", who), who(), rpc.get_worker_info().id, rpc.get_worker_info("ps").id,
                  rpc.get_worker_info("ps").name]
    counter = rpc.remote("ps", Counter, args=(10,))
    out["rref"] = [counter.owner().name, counter.owner_name(), counter.is_owner(),
                   counter.rpc_sync().add(5), counter.rpc_async().add(1).wait(),
                   counter.remote().add(2).to_here(), counter.to_here().value]
    out["local_value_elsewhere"] = _err(counter.local_value)[0]
    mine = rpc.RRef(torch.tensor([1.0, 2.0]))
    out["own_rref"] = [mine.is_owner(), mine.owner_name(), mine.local_value().tolist(), mine.to_here().tolist(),
                       rpc.rpc_sync("ps", value_of, args=(mine,)).tolist()]
    remote_value = rpc.remote("ps", add_then_scale, args=(a, b, 2))
    out["remote_to_here"] = remote_value.to_here().tolist()
    out["remote_error"] = _err(rpc.remote("ps", fails, args=("in remote",)).to_here)
    out["sync_error"] = _err(lambda: rpc.rpc_sync("ps", fails, args=("in sync",)))
    out["async_error"] = _err(rpc.rpc_async("ps", fails, args=("in async",)).wait)
    out["async_execution"] = rpc.rpc_sync("ps", later, args=(torch.tensor(1.0),)).item()
    out["unknown_worker"] = _err(lambda: rpc.rpc_sync("nobody", who))
    out["train"] = _train()
    return out


def run(rank, world_size, out_path, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    options = rpc.TensorPipeRpcBackendOptions(num_worker_threads=8, rpc_timeout=120)
    name = "trainer" if rank == 0 else "ps"
    rpc.init_rpc(name, rank=rank, world_size=world_size, rpc_backend_options=options)
    if rank == 0:
        result = trainer()
        with open(out_path, "w") as f:
            json.dump(result, f)
    rpc.shutdown()


if __name__ == "__main__":
    mp.spawn(run, args=(2, sys.argv[1], int(sys.argv[2])), nprocs=2, join=True)
