"""Resident memory while training a small MLP with Adam (issue #13 point 5).

Runs ``--steps`` (default 5,000) training steps of a 2-layer MLP and prints
RSS (after ``gc.collect()``) at step ``--early`` (default 500) and at the
end, with the growth per step between them.  The target is growth within
10 MB.  ``--mode graph`` runs the same step in msnb's graph mode (the step
replayed as compiled MindSpore graphs).  ``--profile`` also prints the
Python object types whose counts grew most between the two readings.

``--ops`` attributes the PyNative growth: it records every MindSpore kernel
call one msnb training step makes (kernel, arguments), then calls each of
them again ``--calls`` times from plain MindSpore -- plain
``mindspore.Tensor`` copies of the arguments, no msnb code in the loop --
and prints the RSS growth per call, and the sum over one step's calls next
to the step's own growth.  ``--raw`` is a reproduction that imports no msnb
at all: ``mindspore.ops.sum(t, 1, True)`` and a few other kernels in a loop.

What grows (measured on this host, MindSpore 2.10 CPU, see docs/safety.md):
MindSpore's CPU PyBoost path copies each non-tensor kernel argument (an
axis, ``keepdim``, a dtype, a shape, matmul's transpose flags) to device
memory (``DeviceAddressUtils::CopyNoneTensorDataToDevice``, found with
heaptrack) and never frees it; a kernel without such arguments (``exp``,
``add``, ``mul``) does not grow.
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


def rss_mb():
    gc.collect()
    return psutil.Process().memory_info().rss / 2 ** 20


def type_counts():
    gc.collect()
    return collections.Counter(type(o).__name__ for o in gc.get_objects())


def make_step(batch=32):
    """One PyNative/graph training step of the benchmark's MLP (msnb's torch)."""
    import msnb.adapter.torch as torch

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


def _setup(mode="pynative"):
    from msnb.adapter import graph
    from msnb.runtime.context import set_launch

    set_launch(ms, ms.get_context("device_target"))
    graph.set_enabled(mode == "graph")


def run(steps, early, profile=False, mode="pynative", echo=print):
    """(RSS MB at ``early``, RSS MB at ``steps``); prints both."""
    _setup(mode)
    step = make_step()
    first = counts = None
    for i in range(1, steps + 1):
        loss = step()
        if i == early:
            loss.item()
            first = rss_mb()
            counts = type_counts() if profile else None
            echo(f"{mode} step {i:>6}: RSS {first:8.1f} MB")
    loss.item()
    last = rss_mb()
    echo(f"{mode} step {steps:>6}: RSS {last:8.1f} MB   growth {last - first:+.1f} MB "
         f"({(last - first) * 1024 / max(steps - early, 1):.2f} KB/step)")
    if profile:
        grown = type_counts()
        grown.subtract(counts)
        for name, n in grown.most_common(12):
            echo(f"  {name:<30} {n:+d}")
    return first, last


def _plain(a):
    """A plain ``mindspore.Tensor`` copy of an adapter tensor (anything else as is)."""
    if isinstance(a, ms.Tensor) and not isinstance(a, ms.Parameter):
        return ms.Tensor(a.asnumpy())
    if isinstance(a, (tuple, list)):
        return type(a)(_plain(x) for x in a)
    return a


def _sig(a):
    if isinstance(a, ms.Tensor):
        return f"T{tuple(a.shape)}"
    if isinstance(a, (tuple, list)):
        return "(" + ",".join(_sig(x) for x in a) + ")"
    return type(a).__name__ if isinstance(a, float) else repr(a)


def record_step_kernels(step):
    """Every MindSpore kernel call one ``step()`` makes through msnb's dispatch
    table and parameter writes: ``{(name, signature): [kernel, args, calls]}``
    with ``kernel`` the MindSpore function itself and ``args`` plain copies."""
    from msnb.adapter import _dispatch, _ms

    seen = {}

    def spy(name, wrapped):
        raw = getattr(wrapped, "__wrapped__", wrapped)

        def call(*args, **kwargs):
            key = (name, tuple(_sig(a) for a in args))
            if key in seen:
                seen[key][2] += 1
            else:
                seen[key] = [raw, [_plain(a) for a in args], 1, kwargs]
            return wrapped(*args, **kwargs)
        return call

    saved = dict(vars(_dispatch.K)), _ms._assign
    try:
        for name, fn in saved[0].items():
            if callable(fn) and name not in _dispatch._NOT_KERNELS:
                setattr(_dispatch.K, name, spy(name, fn))
        _ms._assign = spy("assign", _ms._assign)
        step().item()
    finally:
        for name, fn in saved[0].items():
            setattr(_dispatch.K, name, fn)
        _ms._assign = saved[1]
    return seen


def kernel_growth(calls=1500, echo=print):
    """Growth per call of each MindSpore kernel call of one msnb step, called from plain MindSpore."""
    _setup()
    step = make_step()
    for _ in range(20):
        step()
    before = rss_mb()
    for _ in range(calls):
        step()
    step().item()
    per_step = (rss_mb() - before) * 1024 / (calls + 1)
    seen = record_step_kernels(step)
    rows = []
    for (name, sig), (kernel, args, n, kwargs) in seen.items():
        for _ in range(50):
            kernel(*args, **kwargs)
        r0 = rss_mb()
        for _ in range(calls):
            kernel(*args, **kwargs)
        rows.append(((rss_mb() - r0) * 1024 / calls, n, name, sig))
    rows.sort(reverse=True)
    for kb, n, name, sig in rows:
        if kb >= 0.05:
            echo(f"{kb:6.2f} KB/call x{n}  {name}{sig}")
    total = sum(kb * n for kb, n, _, _ in rows)
    echo(f"{sum(n for _, n, _, _ in rows)} kernel calls per step ({len(rows)} distinct); growing: "
         f"{sum(1 for r in rows if r[0] >= 0.05)} distinct")
    echo(f"sum over one step's kernel calls, plain MindSpore: {total:6.2f} KB/step")
    echo(f"msnb training step itself:                         {per_step:6.2f} KB/step")
    return total, per_step


def raw_ops(calls=2000, echo=print):
    """RSS growth per call of single MindSpore ops on a (32, 10) tensor; no msnb imported."""
    import numpy as np
    from mindspore import ops

    ms.runtime.launch_blocking()
    t = ms.Tensor(np.random.default_rng(0).standard_normal((32, 10)).astype(np.float32))
    idx = ms.Tensor(np.zeros((32, 1), dtype=np.int64))
    ones = ms.Tensor(np.ones((10, 1), dtype=np.float32))
    cases = {"ops.exp(t)": lambda: ops.exp(t), "ops.add(t, 1.0)": lambda: ops.add(t, 1.0),
             "ops.mul(t, t)": lambda: ops.mul(t, t),
             "ops.sum(t, 1, True)": lambda: ops.sum(t, 1, True), "ops.amax(t, 1, True)": lambda: ops.amax(t, 1, True),
             "ops.matmul(t, ones)": lambda: ops.matmul(t, ones), "ops.cast(t, float16)": lambda: ops.cast(t, ms.float16),
             "ops.zeros((32, 10), float32)": lambda: ops.zeros((32, 10), ms.float32),
             "ops.gather_elements(t, 1, i)": lambda: ops.gather_elements(t, 1, idx)}
    for name, fn in cases.items():
        for _ in range(200):
            fn()
        before = rss_mb()
        for _ in range(calls):
            fn()
        echo(f"{name:<30} {(rss_mb() - before) * 1024 / calls:6.2f} KB/call")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--early", type=int, default=500)
    ap.add_argument("--mode", choices=("pynative", "graph"), default="pynative")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--ops", action="store_true", help="attribute a PyNative step's growth to MindSpore kernels")
    ap.add_argument("--calls", type=int, default=1500, help="calls per kernel with --ops")
    ap.add_argument("--raw", action="store_true", help="plain MindSpore ops in a loop, no msnb imported")
    a = ap.parse_args(argv)
    if a.raw:
        raw_ops()
    elif a.ops:
        kernel_growth(a.calls)
    else:
        run(a.steps, a.early, a.profile, a.mode)


if __name__ == "__main__":
    main()
