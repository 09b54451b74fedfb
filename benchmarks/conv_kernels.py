"""2-D convolution on MindSpore's CPU backend: MindSpore's native kernels
against msnb's CPU path, side by side in one run.

For each shape, milliseconds per call (median of ``--rounds`` rounds):

* ``native fwd``: ``mindspore.ops.conv2d``;
* ``native fwd+bwd``: ``Conv2D`` + ``Conv2DBackpropInput`` +
  ``Conv2DBackpropFilter`` -- the kernels MindSpore's own autodiff of
  ``ops.conv2d`` runs (and what msnb called before its im2col path);
* ``msnb fwd`` / ``msnb fwd+bwd``: ``torch.nn.functional.conv2d`` on msnb
  tensors, forward alone and forward + ``backward()`` into input and weight,
  through whatever ``_dispatch`` plans for the shape (printed).

``--sweep`` adds the measurements the dispatch thresholds come from: native
against im2col kernels per pass over growing batches (the multiply-add
crossover), and the im2col chunk size against speed (the column budget).

Not a test: nothing here asserts.  The native kernels are slow (tens of
seconds per call on the larger shapes); ``--shapes`` picks a subset.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("GLOG_v", "3")

import mindspore as ms  # noqa: E402
import numpy as np  # noqa: E402

import msnb.adapter.torch as torch  # noqa: E402
from msnb.adapter import _dispatch  # noqa: E402
from msnb.adapter._ms import conv2d_prims  # noqa: E402
from msnb.adapter.torch._ops import conv as conv_ops  # noqa: E402

# name: (input NCHW, weight OIHW, stride, padding)
SHAPES = {
    "lenet_conv1": ((128, 3, 32, 32), (16, 3, 5, 5), 1, 0),
    "lenet_conv2": ((128, 16, 14, 14), (32, 16, 5, 5), 1, 0),
    "3x3_s1_p1": ((128, 64, 32, 32), (64, 64, 3, 3), 1, 1),
    "3x3_s2_p1": ((128, 64, 32, 32), (128, 64, 3, 3), 2, 1),
}


def _sync(*ts):
    for t in ts:
        if t is not None:
            t.asnumpy()  # wait for asynchronous kernels before stopping the clock


def _median_ms(fn, rounds, repeat=1):
    """Median over rounds of the mean time of ``repeat`` synchronised calls
    (waiting for MindSpore's asynchronous kernels has a few-ms granularity,
    so short calls are repeated)."""
    fn()  # warm-up: kernel selection, index tables
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - start) / repeat)
    return statistics.median(times) * 1000


def _pad_args(pad):
    return ("pad", (pad,) * 4) if pad else ("valid", 0)


def bench_shape(name, rounds, native=True):
    xs, ws, stride, pad = SHAPES[name]
    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    mode, pads = _pad_args(pad)
    st = (stride, stride)
    row = {}
    if native:
        x, w = ms.Tensor(x_np), ms.Tensor(w_np)
        fwd, bpi, bpf = conv2d_prims(ws[0], ws[2:], mode, pads, st, (1, 1), 1)
        g = ms.ops.ones(fwd(x, w).shape, ms.float32)

        def native_fwd():
            _sync(ms.ops.conv2d(x, w, stride=st, pad_mode=mode, padding=pad))

        def native_fwd_bwd():
            out = fwd(x, w)
            _sync(out, bpi(g, w, xs), bpf(g, x, ws))

        row["native fwd"] = _median_ms(native_fwd, rounds)
        row["native fwd+bwd"] = _median_ms(native_fwd_bwd, rounds)
    tx = torch.tensor(x_np, requires_grad=True)
    tw = torch.tensor(w_np, requires_grad=True)
    F = torch.nn.functional

    def msnb_fwd():
        with torch.no_grad():
            _sync(F.conv2d(tx, tw, stride=stride, padding=pad))

    def msnb_fwd_bwd():
        tx.grad = tw.grad = None
        out = F.conv2d(tx, tw, stride=stride, padding=pad)
        out.backward(torch.ones_like(out))
        _sync(out, tx.grad, tw.grad)

    row["msnb fwd"] = _median_ms(msnb_fwd, rounds)
    row["msnb fwd+bwd"] = _median_ms(msnb_fwd_bwd, rounds)
    _, out_hw = conv_ops.conv2d_geometry(xs[2:], ws[2:], mode, pads, st, (1, 1))
    plan = _dispatch._conv2d_plan_cpu(ms.float32, ms.float32, xs, ws, out_hw, 1)
    return row, plan


def _kernel_times(xs, ws, stride, pad, chunk, rounds):
    """ms per pass, native kernel vs im2col kernel, on raw MindSpore tensors."""
    rng = np.random.default_rng(0)
    x, w = (ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in (xs, ws))
    mode, pads = _pad_args(pad)
    st = (stride, stride)
    geo_pads, out_hw = conv_ops.conv2d_geometry(xs[2:], ws[2:], mode, pads, st, (1, 1))
    g = ms.ops.ones((xs[0], ws[0]) + out_hw, ms.float32)
    fwd, bpi, bpf = conv2d_prims(ws[0], ws[2:], mode, pads, st, (1, 1), 1)
    geo = (geo_pads, st, (1, 1), 1, chunk)
    passes = {
        "fwd": (lambda: _sync(fwd(x, w)), lambda: _sync(conv_ops.im2col_forward(x, w, *geo))),
        "grad_in": (lambda: _sync(bpi(g, w, xs)), lambda: _sync(conv_ops.im2col_grad_input(g, xs, w, *geo))),
        "grad_w": (lambda: _sync(bpf(g, x, ws)), lambda: _sync(conv_ops.im2col_grad_weight(g, x, ws, *geo))),
    }
    macs = xs[0] * ws[0] * ws[1] * ws[2] * ws[3] * out_hw[0] * out_hw[1]
    repeat = max(1, int(2e7 // macs))
    return macs, {k: (_median_ms(a, rounds, repeat), _median_ms(b, rounds, repeat)) for k, (a, b) in passes.items()}


def sweep(rounds):
    print("\ncrossover: native / im2col ms per pass over batch size (chunk = whole batch)")
    for name, batches in (("lenet_conv1", (1, 2, 4, 8, 16)), ("lenet_conv2", (1, 2, 4, 8, 16, 32)),
                          ("3x3_s1_p1", (1, 2)), ("3x3_s2_p1", (1, 2, 4))):
        xs, ws, stride, pad = SHAPES[name]
        for n in batches:
            macs, t = _kernel_times((n,) + xs[1:], ws, stride, pad, n, rounds)
            cells = "  ".join(f"{k} {a:7.1f} / {b:7.1f}" for k, (a, b) in t.items())
            print(f"  {name:12s} n={n:3d} {macs / 1e6:8.2f} M MACs  {cells}")
    print("\ncolumn budget: im2col ms per pass against samples per chunk (batch 128)")
    for name in ("3x3_s1_p1", "3x3_s2_p1"):
        xs, ws, stride, pad = SHAPES[name]
        per_sample = 4 * xs[1] * ws[2] * ws[3] * xs[2] * xs[3]
        for chunk in (8, 16, 32, 64, 128):
            rng = np.random.default_rng(0)
            x, w = (ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in (xs, ws))
            geo_pads, out_hw = conv_ops.conv2d_geometry(xs[2:], ws[2:], "pad", (pad,) * 4, (stride,) * 2, (1, 1))
            g = ms.ops.ones((xs[0], ws[0]) + out_hw, ms.float32)
            geo = (geo_pads, (stride,) * 2, (1, 1), 1, chunk)
            f = _median_ms(lambda: _sync(conv_ops.im2col_forward(x, w, *geo)), rounds)
            gi = _median_ms(lambda: _sync(conv_ops.im2col_grad_input(g, xs, w, *geo)), rounds)
            print(f"  {name:12s} chunk {chunk:3d} ({per_sample * chunk / 2 ** 20:4.0f} MB)  fwd {f:7.1f}  "
                  f"grad_in {gi:7.1f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated subset of: " + ", ".join(SHAPES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-native", action="store_true", help="skip MindSpore's native kernels (slow)")
    ap.add_argument("--sweep", action="store_true", help="also print the threshold sweeps")
    args = ap.parse_args(argv)
    print(f"MindSpore {ms.__version__}, device {ms.get_context('device_target')}, "
          f"median of {args.rounds} rounds, ms per call")
    names = args.shapes.split(",")
    for name in names:
        xs, ws, stride, pad = SHAPES[name]
        print(f"  {name:12s} x={xs} w={ws} stride={stride} padding={pad}")
    head = ("native fwd", "msnb fwd", "native fwd+bwd", "msnb fwd+bwd")
    print(f"{'shape':12s}" + "".join(f"{h:>16s}" for h in head) + "   speedup fwd / fwd+bwd   plan")
    for name in names:
        row, plan = bench_shape(name, args.rounds, native=not args.no_native)
        cells = "".join(f"{row[h]:16.1f}" if h in row else f"{'-':>16s}" for h in head)
        speed = ""
        if "native fwd" in row:
            speed = (f"   {row['native fwd'] / row['msnb fwd']:9.1f}x / "
                     f"{row['native fwd+bwd'] / row['msnb fwd+bwd']:5.1f}x")
        print(f"{name:12s}{cells}{speed}   {plan}", flush=True)
    if args.sweep:
        sweep(args.rounds)


if __name__ == "__main__":
    main()
