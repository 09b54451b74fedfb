"""The adapter under MindSpore's asynchronous launch gives the same numbers.

The suite runs in-process with kernels launched the way msnb picks for this
host (synchronously on a small CPU host).  Users on other hosts, and anyone
setting ``MSNB_LAUNCH=async``, get MindSpore's asynchronous queue, where an
op's result may not exist yet when the next op reads its dtype and shape
and where ``_ms.set_data`` must wait before moving data pointers.  A child
process with the asynchronous default and ``MSNB_CHECK_META=1`` (every
recorded dtype/shape compared with MindSpore's) runs a program that
exercises those paths; its numbers must equal this process's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROGRAM = r'''
import json
import numpy as np
import msnb.adapter.torch as torch

torch.manual_seed(0)
x = torch.randn(64, 32)
w = torch.randn(32, 8, requires_grad=True)
y = x
for _ in range(20):                      # a long chain of queued kernels
    y = (y * 1.01 + 0.5).abs().sqrt() - 0.25
h = y @ w
v = h[:, :4]                             # a view written in place
v.mul_(2).clamp_(-3, 3)
h[1:3] = 0.0
z = h.long().float() + h                 # dtype changes along the chain
loss = (z.relu() ** 2).mean()
loss.backward()
b = torch.zeros(4, 3)
b[:, 0::2].add_(torch.ones(4, 2))        # strided in-place through a slice
b.data = torch.arange(6.0).reshape(2, 3)  # .data write changes the shape
print(json.dumps({"loss": float(loss), "grad": w.grad.sum().item(), "h": h.sum().item(),
                  "b": b.tolist(), "shape": list(b.shape), "dtype": str(z.dtype)}))
'''


def _run(env_extra):
    env = dict(os.environ, GLOG_v="3", **env_extra)
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_async_queue_gives_the_same_numbers_as_blocking_launch():
    # MS_DEV_HOST_BLOCKING_RUN: this process may hold msnb's synchronous-launch setting (context.set_launch)
    asynchronous = _run({"MSNB_CHECK_META": "1", "MS_DEV_LAUNCH_BLOCKING": "0", "MS_DEV_HOST_BLOCKING_RUN": "0"})
    ns = {}
    exec(PROGRAM.replace("print(json.dumps(", "RESULT = (("), ns)
    blocking = ns["RESULT"]
    assert asynchronous["shape"] == [2, 3] and asynchronous["dtype"] == "torch.float32"
    assert asynchronous["b"] == blocking["b"]
    for k in ("loss", "grad", "h"):
        assert abs(asynchronous[k] - blocking[k]) <= 1e-5 * max(1.0, abs(blocking[k])), k
