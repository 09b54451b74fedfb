"""Per-op overhead of msnb's adapter against the same MindSpore ops called
directly in PyNative mode (issue #3 point 8), side by side in one run.

Cases: elementwise add on 1k and 1M elements, a 256x256 matmul, a
10-op elementwise chain, forward and backward of a small MLP (``mlp_step``), against MindSpore's own ops (whose relu maps NaN to 0)
and against the same MindSpore ops with a relu that keeps NaN as PyTorch's does
(``chain_10_nan_relu``: three kernels, as msnb runs it).  Each case is timed in alternating rounds (adapter,
direct, direct, adapter, ...); the median time per call of each is
reported, and the median over rounds of the per-round ratio adapter/direct.
Kernels launch the way msnb launches them on this host (see
``msnb.runtime.context.launch_mode``).  Not a test: nothing here asserts.

When real PyTorch is installed, each case also runs in PyTorch eager and a
second table says what bounds the case against PyTorch: MindSpore's own
per-op cost (direct / PyTorch) times msnb's (adapter / direct).
``--checkouts /work/main .`` runs the benchmark from each msnb checkout in its
own process, alternating, and prints their ratios side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("GLOG_v", "3")

import mindspore as ms  # noqa: E402
import numpy as np  # noqa: E402

import msnb.adapter.torch as torch  # noqa: E402
from msnb.runtime.context import set_launch  # noqa: E402


#: cases timed with a tenth of ``--calls`` per round (each call takes milliseconds)
_LARGE = ("add_1M", "mlp_step")


def _time(fn, n):
    """Wall and process CPU seconds per call (CPU time counts every thread, kernels included, and
    not the time the process waits for a core: steadier than wall time on a shared host)."""
    fn()
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        out = fn()
    out.asnumpy()  # wait for asynchronous kernels before stopping the clock
    return (time.perf_counter() - start) / n, (time.process_time() - cpu) / n


def cases():
    rng = np.random.default_rng(0)
    out = {}
    for name, shape in (("add_1k", (1000,)), ("add_1M", (1000, 1000))):
        a, b = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
        ta, tb = torch.tensor(a), torch.tensor(b)
        ma, mb = ms.Tensor(a), ms.Tensor(b)
        out[name] = (lambda ta=ta, tb=tb: ta + tb, lambda ma=ma, mb=mb: ms.ops.add(ma, mb))
    a, b = rng.standard_normal((256, 256)).astype(np.float32), rng.standard_normal((256, 256)).astype(np.float32)
    ta, tb, ma, mb = torch.tensor(a), torch.tensor(b), ms.Tensor(a), ms.Tensor(b)
    out["matmul_256"] = (lambda: ta @ tb, lambda: ms.ops.matmul(ma, mb))
    x = rng.standard_normal((1000,)).astype(np.float32)
    tx, mx = torch.tensor(x), ms.Tensor(x)

    def chain_adapter():
        y = tx * 2.0
        y = y + 1.0
        y = y.exp()
        y = y * tx
        y = y - 3.0
        y = y.abs()
        y = y.sqrt()
        y = y / 2.0
        y = y.neg()
        return y.relu()

    def chain_direct():
        y = ms.ops.mul(mx, 2.0)
        y = ms.ops.add(y, 1.0)
        y = ms.ops.exp(y)
        y = ms.ops.mul(y, mx)
        y = ms.ops.sub(y, 3.0)
        y = ms.ops.abs(y)
        y = ms.ops.sqrt(y)
        y = ms.ops.div(y, 2.0)
        y = ms.ops.neg(y)
        return ms.ops.relu(y)

    def chain_direct_nan_relu():
        # the same chain with PyTorch's relu (NaN kept), written as msnb computes it: what
        # bounds chain_10 is the two extra kernels MindSpore's relu needs to keep NaN
        y = ms.ops.neg(ms.ops.div(ms.ops.sqrt(ms.ops.abs(ms.ops.sub(ms.ops.mul(ms.ops.exp(ms.ops.add(
            ms.ops.mul(mx, 2.0), 1.0)), mx), 3.0))), 2.0))
        return ms.ops.select(ms.mint.isnan(y), y, ms.ops.relu(y))

    out["chain_10"] = (chain_adapter, chain_direct)
    out["chain_10_nan_relu"] = (chain_adapter, chain_direct_nan_relu)
    out["mlp_step"] = mlp_cases(rng)
    return out


def mlp_cases(rng):
    """Forward and backward of the suite's MLP (784-256-128-10, batch 100, cross-entropy) with
    the same weights: msnb's ``loss.backward()`` against MindSpore's ``value_and_grad`` (what
    hand-written MindSpore PyNative code runs); no optimizer step."""
    nn, F = torch.nn, torch.nn.functional
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    params = list(model.parameters())
    x = torch.tensor(rng.standard_normal((100, 784)).astype(np.float32))
    y = torch.tensor(rng.integers(0, 10, 100))

    def adapter():
        for p in params:
            p.grad = None
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        return loss

    dense = [ms.nn.Dense(i, o) for i, o in ((784, 256), (256, 128), (128, 10))]
    for d, lin in zip(dense, (model[0], model[2], model[4])):
        d.weight.set_data(ms.Tensor(lin.weight.detach().numpy()))
        d.bias.set_data(ms.Tensor(lin.bias.detach().numpy()))
    net = ms.nn.SequentialCell(dense[0], ms.nn.ReLU(), dense[1], ms.nn.ReLU(), dense[2])
    loss_fn = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    mx, my = ms.Tensor(x.numpy()), ms.Tensor(y.numpy().astype(np.int32))
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, net.trainable_params())

    def direct():
        return grad_fn(mx, my)[0]
    return adapter, direct


def pytorch_cases():
    """The same cases in real PyTorch eager (CPU), or {} when it is not installed: what
    bounds each case is MindSpore's own per-op cost (direct) against PyTorch's."""
    try:
        import torch as pt
    except ImportError:
        return {}
    if not hasattr(pt, "_C"):  # msnb's adapter, not PyTorch
        return {}
    pt.set_num_threads(1)  # one thread, as MindSpore runs these small kernels; steadier on a shared host
    rng = np.random.default_rng(0)
    out = {}
    for name, shape in (("add_1k", (1000,)), ("add_1M", (1000, 1000))):
        a, b = (pt.from_numpy(rng.standard_normal(shape).astype(np.float32)) for _ in range(2))
        out[name] = lambda a=a, b=b: a + b
    a, b = (pt.from_numpy(rng.standard_normal((256, 256)).astype(np.float32)) for _ in range(2))
    out["matmul_256"] = lambda: a @ b
    x = pt.from_numpy(rng.standard_normal((1000,)).astype(np.float32))

    def chain():
        return ((((x * 2.0 + 1.0).exp() * x - 3.0).abs().sqrt() / 2.0).neg()).relu()
    out["chain_10"] = out["chain_10_nan_relu"] = chain
    model = pt.nn.Sequential(pt.nn.Linear(784, 256), pt.nn.ReLU(), pt.nn.Linear(256, 128), pt.nn.ReLU(),
                             pt.nn.Linear(128, 10))
    mx = pt.from_numpy(rng.standard_normal((100, 784)).astype(np.float32))
    my = pt.from_numpy(rng.integers(0, 10, 100))

    def mlp():
        model.zero_grad(set_to_none=True)
        loss = pt.nn.functional.cross_entropy(model(mx), my)
        loss.backward()
        return loss
    out["mlp_step"] = mlp
    return out


def _time_torch(fn, n):
    """Process CPU seconds per call (wall time on a shared host mostly measures the wait for a core)."""
    fn()
    cpu = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - cpu) / n


def pytorch_times(calls, rounds):
    """Median seconds per call of each PyTorch case, measured in a separate process (so that
    PyTorch's libraries and threads do not share the MindSpore process); {} without PyTorch."""
    import subprocess
    import sys
    code = ("import json, statistics, sys; sys.path.insert(0, %r); import op_overhead as b; "
            "cs = b.pytorch_cases(); print(json.dumps({k: statistics.median(b._time_torch(f, %d if k not in b._LARGE "
            "else max(10, %d // 10)) for _ in range(%d)) for k, f in cs.items()}))"
            % (os.path.dirname(os.path.abspath(__file__)), calls, calls, rounds))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # real PyTorch, not msnb's
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return {}
    return json.loads(r.stdout.strip().splitlines()[-1])


def compare_checkouts(paths, runs, rest):
    """Run this benchmark (``--json``) from each checkout in ``paths`` as separate processes,
    alternating ``runs`` times, and print the medians side by side."""
    import subprocess
    import sys
    got = {p: [] for p in paths}
    for i in range(runs):
        for p in (paths if i % 2 == 0 else paths[::-1]):
            env = dict(os.environ, PYTHONPATH=os.path.abspath(p))
            # this file's cases for every checkout: only the msnb under test differs
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--json", *rest], env=env, check=True,
                               capture_output=True, text=True)
            got[p].append(json.loads(r.stdout.strip().splitlines()[-1]))
    names = [k for k in got[paths[0]][0] if k != "launch"]
    print(f"adapter/direct ratio, median of {runs} alternating runs per checkout, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"  {'case':17s} " + "  ".join(f"{os.path.basename(os.path.abspath(p)):>22s}" for p in paths))
    for k in names:
        cells = []
        for p in paths:
            rs = [run[k] for run in got[p]]
            cells.append(f"{statistics.median(r['ratio'] for r in rs):5.2f}x (CPU {statistics.median(r['cpu_ratio'] for r in rs):4.2f}x)")
        print(f"  {k:17s} " + "  ".join(f"{c:>22s}" for c in cells))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=100)
    # many short rounds: on a shared 2-core host a median of 7 long ones still swung by +-20%
    p.add_argument("--rounds", type=int, default=41)
    p.add_argument("--json", action="store_true")
    p.add_argument("--checkouts", nargs="+", metavar="DIR",
                   help="compare msnb checkouts (e.g. /work/main .): each runs this benchmark in its own "
                        "process, alternating; prints the ratios side by side")
    p.add_argument("--runs", type=int, default=3, help="runs per checkout with --checkouts")
    p.add_argument("--no-pytorch", action="store_true", help="skip the real PyTorch eager column")
    p.add_argument("--cases", help="comma-separated case names (default: all)")
    a = p.parse_args(argv)
    if a.checkouts:
        compare_checkouts(a.checkouts, a.runs, ["--calls", str(a.calls), "--rounds", str(a.rounds), "--no-pytorch",
                                                *(["--cases", a.cases] if a.cases else [])])
        return 0
    # kernels launch the way msnb launches them on this host (MSNB_LAUNCH=async|blocking overrides)
    launch = set_launch(ms, ms.get_context("device_target"))
    results = {}
    reference = {} if a.no_pytorch else pytorch_times(a.calls, a.rounds)
    for name, (adapter, direct) in cases().items():
        if a.cases and name not in a.cases.split(","):
            continue
        n = max(10, a.calls // 10) if name in _LARGE else a.calls
        ta, td, ratios, ca, cd = [], [], [], [], []
        for i in range(a.rounds):
            # ABBA order, and the ratio taken per round: the host's speed drifts by
            # 10-20% over seconds, which a ratio of two separate medians picks up
            if i % 2:
                d, dc = _time(direct, n)
                t, tc = _time(adapter, n)
            else:
                t, tc = _time(adapter, n)
                d, dc = _time(direct, n)
            ta.append(t)
            td.append(d)
            ratios.append(t / d)
            ca.append(tc)
            cd.append(dc)
        results[name] = {"adapter_us": statistics.median(ta) * 1e6, "direct_us": statistics.median(td) * 1e6,
                         "ratio": statistics.median(ratios),
                         "adapter_cpu_us": statistics.median(ca) * 1e6, "direct_cpu_us": statistics.median(cd) * 1e6,
                         "cpu_ratio": statistics.median(ca) / statistics.median(cd)}
        if name in reference:
            results[name]["pytorch_us"] = reference[name] * 1e6  # CPU time
    if a.json:
        print(json.dumps({"launch": launch, **results}))
        return 0
    print(f"adapter vs direct MindSpore (PyNative, {ms.get_context('device_target')}, {launch} launch), "
          f"median of {a.rounds} rounds, load average {os.getloadavg()[0]:.1f}")
    for name, r in results.items():
        print(f"  {name:17s} adapter {r['adapter_us']:9.1f} us   direct {r['direct_us']:9.1f} us   "
              f"ratio {r['ratio']:5.2f}x (median of per-round ratios)   CPU {r['adapter_cpu_us']:8.1f} / "
              f"{r['direct_cpu_us']:8.1f} us = {r['cpu_ratio']:5.2f}x")
    if any("pytorch_us" in r for r in results.values()):
        print("what bounds each case against PyTorch eager (CPU time; PyTorch on one thread, measured just before "
              "in its own process): MindSpore's own cost (direct / PyTorch) times msnb's (adapter / direct)")
        for name, r in results.items():
            if "pytorch_us" in r:
                floor = r["direct_cpu_us"] / r["pytorch_us"]
                print(f"  {name:17s} PyTorch {r['pytorch_us']:9.1f} us CPU   MindSpore floor {floor:6.1f}x PyTorch   "
                      f"msnb {r['adapter_cpu_us'] / r['pytorch_us']:6.1f}x PyTorch (= {floor:.1f} x {r['cpu_ratio']:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
