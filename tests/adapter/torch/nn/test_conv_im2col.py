"""msnb's CPU im2col convolution (``torch/_ops/conv.py``) against real PyTorch:
output and the gradients of input, weight and bias over strides, paddings,
dilation, groups, non-square kernels, batch 1 and batches split into chunks.

``_dispatch`` sends small convolutions to MindSpore's native kernels (they
win below a few million multiply-adds), so these tests lower the thresholds
to zero, optionally route the weight gradient through im2col as well, and
assert the im2col kernels really ran.  Tolerance: the largest absolute
difference relative to the largest magnitude, 1e-5 for float32 (1e-12 for
float64) -- a sum over many taps is only defined that well up to order.
"""

from __future__ import annotations

import collections
import threading
import zlib

import mindspore as ms
import numpy as np
import pytest

from msnb.adapter import _dispatch
from msnb.adapter._ms import conv2d_prims
from msnb.adapter.torch._ops import conv as conv_ops

from ..harness import mt, real

pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel:UserWarning")

KERNELS = ("im2col_forward", "im2col_grad_input", "im2col_grad_weight")

# (id, input shape, weight shape, conv2d keyword arguments)
CASES = [
    ("stride1_pad0", (2, 3, 9, 9), (4, 3, 3, 3), {}),
    ("stride1_pad1", (2, 3, 9, 9), (4, 3, 3, 3), dict(padding=1)),
    ("stride2_pad1", (2, 3, 9, 10), (4, 3, 3, 3), dict(stride=2, padding=1)),
    ("stride2_pad0_5x5", (3, 3, 12, 11), (5, 3, 5, 5), dict(stride=2)),
    ("stride3_leftover", (2, 2, 10, 10), (3, 2, 3, 3), dict(stride=3)),
    ("same", (2, 3, 7, 8), (4, 3, 3, 3), dict(padding="same")),
    ("same_even_kernel", (2, 3, 7, 8), (4, 3, 2, 4), dict(padding="same")),
    ("same_dilation2", (2, 3, 8, 9), (4, 3, 3, 2), dict(padding="same", dilation=2)),
    ("valid", (2, 3, 7, 8), (4, 3, 3, 2), dict(padding="valid")),
    ("dilation2", (2, 3, 11, 11), (4, 3, 3, 3), dict(dilation=2, padding=2)),
    ("dilation2_stride2", (2, 3, 12, 12), (4, 3, 3, 3), dict(dilation=2, stride=2, padding=1)),
    ("groups2", (2, 4, 9, 9), (6, 2, 3, 3), dict(groups=2, padding=1)),
    ("groups2_stride2_dilation2", (2, 4, 9, 9), (6, 2, 3, 3), dict(groups=2, stride=2, dilation=2)),
    ("depthwise_multiplier2", (2, 4, 9, 9), (8, 1, 3, 3), dict(groups=4, stride=2, padding=1)),
    ("nonsquare_mixed", (2, 3, 9, 11), (4, 3, 2, 5), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2))),
    ("nonsquare_1xk", (2, 3, 6, 10), (4, 3, 1, 3), dict(padding=(0, 1))),
    ("batch1", (1, 3, 8, 8), (2, 3, 3, 3), dict(padding=1)),
    ("kernel_covers_input", (2, 3, 5, 5), (2, 3, 5, 5), {}),
    ("kernel1x1_stride2", (2, 4, 8, 8), (3, 4, 1, 1), dict(stride=2)),
    ("kernel1x1_pad1", (2, 4, 5, 5), (3, 4, 1, 1), dict(padding=1)),
]


def _rng(key):
    return np.random.default_rng(zlib.crc32(key.encode()))


def _run(lib, x, w, b, fn, kwargs, grad_x=True, grad_w=True):
    """Output and gradients of ``sum(fn(x, w, b) * G)`` for a fixed random G."""
    tx = lib.tensor(x, requires_grad=grad_x)
    tw = lib.tensor(w, requires_grad=grad_w)
    tb = None if b is None else lib.tensor(b, requires_grad=True)
    out = fn(lib)(tx, tw, tb, **kwargs)
    g = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(x.dtype)
    (out * lib.tensor(g)).sum().backward()
    return [out, tx.grad, tw.grad, None if tb is None else tb.grad]


def _np(t):
    return t.detach().numpy()


def _assert_close(got, want, tol, where):
    assert tuple(got.shape) == tuple(want.shape), f"{where}: shape {tuple(got.shape)} != torch {tuple(want.shape)}"
    assert str(got.dtype) == str(want.dtype), f"{where}: dtype {got.dtype} != torch {want.dtype}"
    a, b = _np(got).astype(np.float64), _np(want).astype(np.float64)
    err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)
    assert err <= tol, f"{where}: relative error {err:.2e} > {tol:.0e}"


def compare(x, w, b, kwargs, fn=lambda lib: lib.nn.functional.conv2d, grad_x=True, grad_w=True):
    tol = 1e-12 if x.dtype == np.float64 else 1e-5
    want = _run(real, x, w, b, fn, kwargs, grad_x, grad_w)
    got = _run(mt, x, w, b, fn, kwargs, grad_x, grad_w)
    for name, g, r in zip(("output", "grad input", "grad weight", "grad bias"), got, want):
        if r is None:
            assert g is None, f"{name}: msnb computed a gradient torch does not have"
        else:
            assert g is not None, f"{name}: missing"
            _assert_close(g, r, tol, name)
    return got


@pytest.fixture
def calls(monkeypatch):
    """Route every im2col-capable pass through im2col; count kernel calls."""
    counter = collections.Counter()
    monkeypatch.setattr(_dispatch, "CONV2D_IM2COL_FORWARD_MACS", 0)
    monkeypatch.setattr(_dispatch, "CONV2D_IM2COL_GRAD_INPUT_MACS", 0)
    for name in KERNELS:
        def spy(*args, _orig=getattr(conv_ops, name), _name=name):
            counter[_name] += 1
            return _orig(*args)
        monkeypatch.setattr(conv_ops, name, spy)
    return counter


class _Plans(list):
    """The plans handed out, in order; ``weight`` overrides the weight-gradient
    route of im2col plans."""

    weight = None


@pytest.fixture
def plans(monkeypatch):
    log = _Plans()

    def plan(*args, geometry=None):
        p = _dispatch._conv2d_plan_cpu(*args)
        if log.weight and p[0] == "im2col":
            p = (p[0], p[1], log.weight, p[3])
        log.append(p)
        return p

    monkeypatch.setattr(_dispatch.K, "conv2d_plan", plan)
    return log


@pytest.mark.parametrize("weight_grad", ["native", "im2col"])
@pytest.mark.parametrize("cid,xs,ws,kwargs", CASES, ids=[c[0] for c in CASES])
def test_conv2d_matches_torch(calls, plans, cid, xs, ws, kwargs, weight_grad):
    rng = _rng(cid)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    plans.weight = weight_grad
    compare(x, w, b, kwargs)
    assert calls["im2col_forward"] == 1 and calls["im2col_grad_input"] == 1
    assert calls["im2col_grad_weight"] == (weight_grad == "im2col")


# 1x1 stride 1 reaches im2col only in float64 (float32 keeps the native kernel)
F64_CASES = CASES[:4] + CASES[11:15] + [("kernel1x1_stride1", (2, 4, 6, 5), (3, 4, 1, 1), {})]


@pytest.mark.parametrize("cid,xs,ws,kwargs", F64_CASES, ids=[c[0] for c in F64_CASES])
def test_conv2d_float64(calls, cid, xs, ws, kwargs):
    """float64 has no native MindSpore CPU kernel: every pass is im2col,
    whatever the thresholds."""
    rng = _rng(cid)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    compare(x, w, rng.standard_normal(ws[0]), kwargs)
    assert all(calls[k] == 1 for k in KERNELS)


def test_float64_ignores_size_thresholds():
    x, w = np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))
    compare(x, w, None, {})  # far below both thresholds, still computed in float64


@pytest.mark.parametrize("kwargs", [dict(stride=2, padding=1), dict(padding="same", dilation=2), {}])
def test_conv1d_matches_torch(calls, kwargs):
    rng = _rng(str(kwargs))
    x, w = rng.standard_normal((3, 4, 17)).astype(np.float32), rng.standard_normal((5, 4, 4)).astype(np.float32)
    compare(x, w, rng.standard_normal(5).astype(np.float32), kwargs, fn=lambda lib: lib.nn.functional.conv1d)
    assert calls["im2col_forward"] == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_budget_splits_batch(calls, plans, monkeypatch, dtype):
    """A batch whose column tensor exceeds the budget runs in sample chunks
    (here forced small: 5 samples, 2 per chunk) with identical results."""
    xs, ws = (5, 3, 10, 9), (4, 3, 3, 3)
    per_sample = np.dtype(dtype).itemsize * 3 * 9 * max(10 * 9 + 1, 10 * 9)  # same padding keeps L = H*W
    monkeypatch.setattr(_dispatch, "CONV2D_COLUMN_BYTES", 2 * per_sample + 1)
    plans.weight = "im2col"
    rng = _rng("chunks")
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    compare(x, w, rng.standard_normal(4).astype(dtype), dict(padding=1))
    assert plans[0][3] == 2
    assert all(calls[k] == 1 for k in KERNELS)


def test_sample_over_budget_goes_native(calls, plans, monkeypatch):
    """One float32 sample bigger than the budget: MindSpore's native kernels."""
    monkeypatch.setattr(_dispatch, "CONV2D_COLUMN_BYTES", 64)
    rng = _rng("native")
    x, w = rng.standard_normal((2, 3, 8, 8)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    out = mt.nn.functional.conv2d(mt.tensor(x), mt.tensor(w), padding=1)
    assert plans[0][:3] == ("native",) * 3 and not calls
    ref = real.nn.functional.conv2d(real.tensor(x), real.tensor(w), padding=1).numpy()
    np.testing.assert_allclose(_np(out), ref, rtol=1e-4, atol=1e-5)


def test_plan_keeps_native_where_it_wins():
    """The CPU plan: 1x1 stride-1 and tiny convolutions native, big ones
    im2col with the weight gradient native, bfloat16 native."""
    f32, plan = ms.float32, _dispatch._conv2d_plan_cpu
    assert plan(f32, f32, (128, 64, 16, 16), (128, 64, 1, 1), (16, 16), 1)[:3] == ("native",) * 3
    assert plan(f32, f32, (2, 4, 8, 8), (4, 4, 3, 3), (8, 8), 1)[:3] == ("native",) * 3
    assert plan(f32, f32, (128, 3, 32, 32), (16, 3, 5, 5), (28, 28), 1) == ("im2col", "im2col", "native", 128)
    assert plan(ms.bfloat16, ms.bfloat16, (128, 3, 32, 32), (16, 3, 5, 5), (28, 28), 1)[:3] == ("native",) * 3
    assert _dispatch._conv2d_plan_native(f32, f32, (128, 3, 32, 32), (16, 3, 5, 5), (28, 28), 1)[:3] == \
        ("native",) * 3


def test_graph_recording_takes_im2col_for_the_weight_gradient_too(monkeypatch):
    """Inside a graph being recorded MindSpore's native filter-gradient kernel
    ran 10x+ slower than in PyNative, so an im2col forward brings an im2col
    weight gradient there; PyNative keeps the native one."""
    f32, plan = ms.float32, _dispatch._conv2d_plan_cpu
    args = (f32, f32, (128, 3, 32, 32), (16, 3, 5, 5), (28, 28), 1)
    monkeypatch.setattr(_dispatch, "trace_open", lambda: True)
    assert plan(*args) == ("im2col", "im2col", "im2col", 128)
    assert plan(f32, f32, (2, 4, 8, 8), (4, 4, 3, 3), (8, 8), 1)[:3] == ("native",) * 3
    monkeypatch.setattr(_dispatch, "trace_open", lambda: False)
    assert plan(*args) == ("im2col", "im2col", "native", 128)


def test_only_needed_gradients(calls):
    rng = _rng("needed")
    x, w = rng.standard_normal((2, 3, 8, 8)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    compare(x, w, None, dict(padding=1), grad_x=False)
    assert calls["im2col_grad_input"] == 0
    compare(x, w, None, dict(padding=1), grad_w=False)
    assert calls["im2col_grad_input"] == 1


def test_one_autograd_node(calls):
    x = mt.tensor(np.ones((2, 3, 6, 6), np.float32), requires_grad=True)
    w = mt.tensor(np.ones((4, 3, 3, 3), np.float32), requires_grad=True)
    out = mt.nn.functional.conv2d(x, w, stride=2)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    assert [type(e[0]).__name__ for e in out.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    out.sum().backward()
    assert calls["im2col_forward"] == 1 and calls["im2col_grad_input"] == 1


@pytest.mark.parametrize("stride", [(1, 1), (2, 2), (2, 1)])
def test_mindspore_same_pad_mode(stride):
    """``pad_mode="same"`` as MindSpore defines it (output ceil(in / stride),
    odd pixel bottom/right; torch has no strided 'same'): im2col against
    MindSpore's own kernels."""
    rng = _rng(f"same{stride}")
    xs, ws = (2, 3, 9, 8), (4, 3, 3, 4)
    x, w = (ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in (xs, ws))
    pads, out_hw = conv_ops.conv2d_geometry(xs[2:], ws[2:], "same", 0, stride, (1, 1))
    fwd, bpi, bpf = conv2d_prims(4, (3, 4), "same", 0, stride, (1, 1), 1)
    ref = fwd(x, w)
    assert tuple(ref.shape[2:]) == out_hw
    geo = (pads, stride, (1, 1), 1, 2)
    got = conv_ops.im2col_forward(x, w, *geo)
    g = ms.Tensor(rng.standard_normal(tuple(ref.shape)).astype(np.float32))
    for a, r in ((got, ref), (conv_ops.im2col_grad_input(g, xs, w, *geo), bpi(g, w, xs)),
                 (conv_ops.im2col_grad_weight(g, x, ws, *geo), bpf(g, x, ws))):
        a, r = a.asnumpy(), r.asnumpy()
        assert np.abs(a - r).max() <= 1e-5 * np.abs(r).max()


def test_float16_matches_native_kernel(calls):
    """float16 takes im2col too; it rounds as MindSpore's native kernel does."""
    rng = _rng("half")
    x = rng.standard_normal((4, 3, 12, 12)).astype(np.float16)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float16)
    out = mt.nn.functional.conv2d(mt.tensor(x), mt.tensor(w), padding=1)
    assert calls["im2col_forward"] == 1 and str(out.dtype) == "torch.float16"
    ref = conv2d_prims(5, (3, 3), "pad", (1, 1, 1, 1), (1, 1), (1, 1), 1)[0](ms.Tensor(x), ms.Tensor(w)).asnumpy()
    assert np.abs(_np(out).astype(np.float32) - ref.astype(np.float32)).max() <= 2e-3 * np.abs(ref).max()


def test_recordable_by_mindspore_trace():
    """The kernels are MindSpore ops only, so ``jit(capture_mode="trace")``
    records them and replays them on new inputs."""
    geo = ((1, 1, 0, 2), (2, 1), (1, 2), 1, 2)
    xs, ws = (3, 2, 7, 8), (4, 2, 3, 3)

    def step(x, w, g):
        return (conv_ops.im2col_forward(x, w, *geo), conv_ops.im2col_grad_input(g, xs, w, *geo),
                conv_ops.im2col_grad_weight(g, x, ws, *geo))

    rng = _rng("trace")
    traced = ms.jit(step, capture_mode="trace")
    _, out_hw = conv_ops.conv2d_geometry(xs[2:], ws[2:], "pad", geo[0], geo[1], geo[2])
    for _ in range(2):
        args = [ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in (xs, ws, (3, 4) + out_hw)]
        for a, r in zip(_in_thread(traced, *args), step(*args)):
            np.testing.assert_allclose(a.asnumpy(), r.asnumpy(), rtol=1e-6, atol=1e-6)


def _in_thread(fn, *args):
    """Call ``fn`` on a fresh thread: MindSpore's trace reads the source line of
    every caller frame and fails on frames without source (``python -m
    pytest`` starts in frozen ``runpy``); a new thread's stack has none."""
    box = {}

    def target():
        try:
            box["out"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised below
            box["err"] = e

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "err" in box:
        raise box["err"]
    return box["out"]
