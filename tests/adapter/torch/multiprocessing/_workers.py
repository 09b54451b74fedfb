"""Targets the multiprocessing tests start in child processes (importable there by name)."""

from __future__ import annotations

import time

import msnb.adapter.torch as torch

STEPS, LR = 3, 0.1


def hogwild_train(rank, model, lock, results):
    """STEPS SGD steps on the shared model; the loss's gradient does not depend on the weights, so the
    final weights say exactly how many steps, from either process, reached the shared memory."""
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x = torch.full((1, 4), float(rank + 1))
    seen = []
    for _ in range(STEPS):
        with lock:
            seen.append(model.weight[0, 0].item())
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
    results.put((rank, seen, model.weight.detach().clone()))


def wait_then_fail(i, out):
    """Rank 0 writes the shared tensor; rank 1 waits until it sees that write, then raises."""
    if i == 0:
        out[0] = 10.0
        return
    deadline = time.monotonic() + 120
    while out[0].item() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    raise ValueError(f"rank {i} saw {out[0].item()}")


def ddp_rank(rank, world, out):
    """PyTorch's spawn + init_process_group pattern: rank 0 hosts MindSpore's scheduler at MASTER_PORT."""
    import msnb.adapter.torch.distributed as dist
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1, bias=False))
    model(torch.full((1, 2), float(rank + 1))).sum().backward()
    out[rank] = model.module.weight.grad[0, 0]  # averaged over the ranks: (1 + 2) / 2
    out[world + rank] = float(dist.get_rank())
    dist.destroy_process_group()
