"""Run by test_ddp.py on 2 workers: DDP LeNet for 10 steps vs one process on the whole batch.

Each rank trains a DDP LeNet on its half of every batch, and also (alone, no
DDP) the same LeNet on the concatenated batch; it writes the largest
relative difference of the parameters and facts about the wrapper to
``$OUT/rank<k>.json``."""

import json
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

# the seed's LeNet, as the benchmarks train it (its ``import torch`` is msnb's here too)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4, "benchmarks", "_lenet"))
from torch_train import LeNet  # noqa: E402


def _graphs_compiled():
    """How many graphs msnb's graph mode compiled in this worker (0 in PyNative)."""
    from msnb.adapter import graph
    return graph.stats()["graphs"]


def main(out_dir, steps=10, per_rank=4):
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(100 + rank)  # different on purpose: DDP must broadcast rank 0's weights
    model = LeNet()
    torch.manual_seed(0)
    reference = LeNet()
    ddp = DDP(model, find_unused_parameters=False)
    with torch.no_grad():
        for p, q in zip(reference.parameters(), model.parameters()):
            p.copy_(q)  # rank 0's initial weights, as DDP broadcast them
    rng = np.random.default_rng(0)
    xs = torch.from_numpy(rng.standard_normal((steps, world * per_rank, 3, 32, 32)).astype(np.float32))
    ys = torch.from_numpy(rng.integers(0, 10, (steps, world * per_rank)))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9)
    for s in range(steps):
        mine = slice(rank * per_rank, (rank + 1) * per_rank)
        opt.zero_grad()
        F.cross_entropy(ddp(xs[s, mine]), ys[s, mine]).backward()
        opt.step()
        ref_opt.zero_grad()
        F.cross_entropy(reference(xs[s]), ys[s]).backward()
        ref_opt.step()
    worst = max(float(((p - q).abs().max() / q.abs().max()).item())
                for p, q in zip(model.parameters(), reference.parameters()))
    # no_sync: local gradients only, then the next backward averages the accumulated sum
    opt.zero_grad()
    with ddp.no_sync():
        F.cross_entropy(ddp(xs[0, :per_rank] * (rank + 1)), ys[0, :per_rank]).backward()
    local = model.fc3.bias.grad.clone()
    gathered = [torch.zeros_like(local) for _ in range(world)]
    dist.all_gather(gathered, local)
    facts = {"rank": rank, "worst_rel": worst, "keys": list(ddp.state_dict())[:2],
             "module_is_model": ddp.module is model,
             "no_sync_ranks_differ": not torch.equal(gathered[0], gathered[1]),
             "graphs_compiled": _graphs_compiled()}
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(facts, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
