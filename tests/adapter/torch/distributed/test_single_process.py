"""torch.distributed in one process without a launcher: a world of 1, as PyTorch allows."""

from __future__ import annotations

import pytest

import msnb.adapter.torch as torch
import msnb.adapter.torch.distributed as dist
from msnb.adapter.torch.nn.parallel import DistributedDataParallel


@pytest.fixture
def world_of_one(monkeypatch):
    for k in ("MS_ROLE", "MS_SCHED_PORT", "WORLD_SIZE", "RANK"):
        monkeypatch.delenv(k, raising=False)
    dist.init_process_group("gloo", init_method="env://")
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


def test_collectives_return_their_input(world_of_one):
    t = torch.tensor([1.0, 2.0])
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    out = [torch.zeros(2)]
    dist.all_gather(out, t)
    objs = [None]
    dist.all_gather_object(objs, {"a": 1})
    assert t.tolist() == [1.0, 2.0] and out[0].tolist() == [1.0, 2.0] and objs == [{"a": 1}]
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")


def test_second_init_and_uninitialised_use_raise_as_pytorch(world_of_one):
    with pytest.raises(ValueError, match="twice"):
        dist.init_process_group("gloo")
    dist.destroy_process_group()
    with pytest.raises(ValueError, match="not been initialized"):
        dist.get_rank()


def test_a_larger_world_without_launcher_says_how_to_launch(monkeypatch):
    monkeypatch.delenv("MS_ROLE", raising=False)
    with pytest.raises(RuntimeError, match="msnb launch --nproc-per-node 2"):
        dist.init_process_group("nccl", world_size=2, rank=0)
    assert not dist.is_initialized()


def test_unknown_backend_and_file_init_are_refused():
    with pytest.raises(ValueError, match="Invalid backend"):
        dist.init_process_group("carrier-pigeon")
    with pytest.raises(NotImplementedError, match="not supported by msnb yet"):
        dist.init_process_group("gloo", init_method="file:///tmp/x")


def test_ddp_wraps_with_module_prefix_and_keeps_gradients(world_of_one):
    """One rank: averaging over one rank leaves backward's gradients as they were."""
    net = torch.nn.Linear(3, 2)
    ddp = DistributedDataParallel(net, find_unused_parameters=True)
    assert ddp.module is net and list(ddp.state_dict()) == ["module.weight", "module.bias"]
    x = torch.ones(4, 3)
    ddp(x).sum().backward()
    assert net.weight.grad.tolist() == [[4.0] * 3] * 2 and net.bias.grad.tolist() == [4.0, 4.0]


@pytest.mark.parametrize("order", ["ddp_of_compiled", "compiled_ddp"])
def test_graph_mode_under_ddp_still_syncs_every_backward(world_of_one, order):
    """msnb graph mode (torch.compile) must not bypass the gradient sync: one reduce per backward."""
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    ddp = DistributedDataParallel(torch.compile(net) if order == "ddp_of_compiled" else net)
    model = ddp if order == "ddp_of_compiled" else torch.compile(ddp)
    reducer, calls = ddp._msnb, []
    real_reduce = reducer.reduce
    reducer.reduce = lambda: (calls.append(1), real_reduce())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        model(torch.ones(5, 3)).sum().backward()
        opt.step()
    assert len(calls) == 3 and net[0].bias.grad is not None


def test_point_to_point_in_a_world_of_one_names_the_problem():
    """PyTorch refuses a send to oneself; all_to_all in a world of one returns the input."""
    dist.init_process_group("gloo", world_size=1, rank=0)
    try:
        with pytest.raises(ValueError, match="should not be the same"):
            dist.send(torch.ones(2), dst=0)
        with pytest.raises(ValueError, match="cannot receive from any source"):
            dist.recv(torch.ones(2))
        out = [torch.zeros(2)]
        dist.all_to_all(out, [torch.tensor([3., 4.])])
        assert out[0].tolist() == [3.0, 4.0]
    finally:
        dist.destroy_process_group()
