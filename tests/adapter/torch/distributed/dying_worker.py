"""Run by test_launch_failures.py: rank 1 dies (SIGKILL, or an exception) while rank 0 waits in all_reduce."""

import os
import signal
import sys
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
with open(os.path.join(sys.argv[1], f"pid{rank}"), "w") as f:
    f.write(str(os.getpid()))
print(f"rank {rank} ready", flush=True)
if rank == 1:
    time.sleep(1)
    if sys.argv[2] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise ValueError("rank 1 failed on purpose")
for _ in range(600):
    dist.all_reduce(torch.ones(1))
    time.sleep(0.1)
