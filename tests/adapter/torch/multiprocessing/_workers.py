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
