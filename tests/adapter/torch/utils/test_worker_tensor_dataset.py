"""A dataset computing with msnb tensors works in forked workers under
synchronous launch (msnb's default on CPU hosts with fewer than 4 cores).

MindSpore's asynchronous launch queue does not survive ``fork`` (a kernel in
the child waits forever), but with ``launch_blocking`` kernels run on the
calling thread, which the forked worker has.  Run in a child process with
``MSNB_LAUNCH=blocking`` so the result does not depend on this host's cores.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]

CHILD = r"""
import mindspore as ms
from msnb.runtime.context import set_launch
assert set_launch(ms, "CPU") == "blocking"
import msnb.adapter.torch as torch
from msnb.adapter.torch.utils.data import DataLoader, Dataset

class Computed(Dataset):
    def __len__(self):
        return 6
    def __getitem__(self, i):
        return torch.ones(3) * i + torch.arange(3).float()

got = [b.tolist() for b in DataLoader(Computed(), batch_size=2, num_workers=2, timeout=60)]
want = [b.tolist() for b in DataLoader(Computed(), batch_size=2)]
assert got == want, (got, want)
print("ok")
"""


def test_tensor_dataset_in_forked_workers_with_blocking_launch():
    env = dict(os.environ, PYTHONPATH=str(REPO), GLOG_v="3", MSNB_LAUNCH="blocking")
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
