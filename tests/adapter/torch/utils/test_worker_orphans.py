"""DataLoader workers die with their parent, whatever kills it (as PyTorch's do).

A child process makes ``DataLoader(num_workers=2)``, takes one batch and
prints its workers' pids (each worker records its own pid, so helper
processes such as a forkserver or resource tracker are not mistaken for
workers); the test SIGKILLs that child (no cleanup code can
run) and checks with psutil that both workers are gone within a few
seconds (a zombie waiting to be reaped counts as gone).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[4]

CHILD = r"""
import os, sys, time
import numpy as np
import psutil
from msnb.adapter.torch.utils.data import DataLoader, Dataset

PIDS = sys.argv[1]

class Slow(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        open(os.path.join(PIDS, str(os.getpid())), "w").close()
        time.sleep(0.05)
        return np.full(2, i, dtype=np.float32)

it = iter(DataLoader(Slow(), batch_size=2, num_workers=2))
next(it)
deadline = time.time() + 60
while len(os.listdir(PIDS)) < 2 and time.time() < deadline:
    time.sleep(0.05)
print(" ".join(os.listdir(PIDS)), flush=True)
time.sleep(600)
"""


def _gone(pid):
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_workers_exit_when_parent_is_killed(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO), GLOG_v="3")
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdout=subprocess.PIPE, text=True,
                            env=env)
    try:
        line = proc.stdout.readline()
        workers = [int(p) for p in line.split()]
        assert len(workers) == 2, line
        assert not any(_gone(p) for p in workers)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(_gone(p) for p in workers):
            time.sleep(0.1)
        alive = [p for p in workers if not _gone(p)]
        for p in alive:  # do not leave them behind if the assertion fails
            os.kill(p, signal.SIGKILL)
        assert alive == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
