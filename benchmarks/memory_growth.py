"""Resident memory while training a small MLP with Adam (issue #13 point 5).

Runs ``--steps`` (default 5,000) PyNative training steps of a 2-layer MLP
and prints RSS (after ``gc.collect()``) at step ``--early`` (default 500)
and at the end, with the growth per step between them.  The target is
growth within 10 MB.  ``--profile`` also prints the Python object types
whose counts grew most between the two readings (to find a leak).
``--ops`` instead measures RSS growth per call of single plain MindSpore ops
(no msnb involved), which is where the growth measured here comes from.
Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os

os.environ.setdefault("GLOG_v", "3")

import mindspore as ms  # noqa: E402
import psutil  # noqa: E402

import msnb.adapter.torch as torch  # noqa: E402
from msnb.runtime.context import set_launch  # noqa: E402


def rss_mb():
    gc.collect()
    return psutil.Process().memory_info().rss / 2 ** 20


def type_counts():
    gc.collect()
    return collections.Counter(type(o).__name__ for o in gc.get_objects())


def make_step(batch=32):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(batch, 20)
    y = torch.randint(0, 10, (batch,))
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def run(steps, early, profile=False, echo=print):
    """(RSS MB at ``early``, RSS MB at ``steps``); prints both."""
    set_launch(ms, ms.get_context("device_target"))
    step = make_step()
    first = counts = None
    for i in range(1, steps + 1):
        loss = step()
        if i == early:
            loss.item()
            first = rss_mb()
            counts = type_counts() if profile else None
            echo(f"step {i:>6}: RSS {first:8.1f} MB")
    loss.item()
    last = rss_mb()
    echo(f"step {steps:>6}: RSS {last:8.1f} MB   growth {last - first:+.1f} MB "
         f"({(last - first) * 1024 / max(steps - early, 1):.2f} KB/step)")
    if profile:
        grown = type_counts()
        grown.subtract(counts)
        for name, n in grown.most_common(12):
            echo(f"  {name:<30} {n:+d}")
    return first, last


def plain_ops(calls=2000, echo=print):
    """RSS growth per call of single MindSpore ops on a (32, 10) tensor, no msnb code."""
    import numpy as np
    from mindspore import ops

    set_launch(ms, ms.get_context("device_target"))
    t = ms.Tensor(np.random.default_rng(0).standard_normal((32, 10)).astype(np.float32))
    idx = ms.Tensor(np.zeros((32, 1), dtype=np.int64))
    ones = ms.Tensor(np.ones((10, 1), dtype=np.float32))
    cases = {"ops.exp": lambda: ops.exp(t), "ops.add(t, 1.0)": lambda: ops.add(t, 1.0),
             "ops.sum(t, 1, True)": lambda: ops.sum(t, 1, True), "ops.amax(t, 1, True)": lambda: ops.amax(t, 1, True),
             "ops.matmul": lambda: ops.matmul(t, ones), "ops.cast": lambda: ops.cast(t, ms.float16),
             "ops.gather_elements": lambda: ops.gather_elements(t, 1, idx)}
    for name, fn in cases.items():
        for _ in range(200):
            fn()
        before = rss_mb()
        for _ in range(calls):
            fn()
        echo(f"{name:<24} {(rss_mb() - before) * 1024 / calls:6.2f} KB/call")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--early", type=int, default=500)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--ops", action="store_true", help="measure single plain MindSpore ops instead")
    a = ap.parse_args(argv)
    if a.ops:
        plain_ops()
    else:
        run(a.steps, a.early, a.profile)


if __name__ == "__main__":
    main()
