"""The one place that maps torch ops to MindSpore kernels.

Adapter ops call ``K.<name>(...)`` with MindSpore tensors and get MindSpore
tensors back.  Each entry names a CPU kernel (classic ``mindspore.ops``,
which have CPU kernels) and, where it differs, an Ascend kernel
(``mindspore.mint``, the fast path there).  :func:`select` rebinds ``K`` when
the device target changes, so the per-call cost is one attribute lookup.

Ascend entries were written against MindSpore's documentation and have not
been run on Ascend hardware (none is available to this project); every CPU
entry is exercised by the test suite.
"""

from __future__ import annotations

import functools
import math

from . import _host as host
from . import _tuning
from ._ms import adapted, device_target, direct_target, lstm_prims, ms, plain_args, primitive_kernel, trace_open

__all__ = ["K", "KA", "KD", "select", "TABLE", "set_kernel_hook", "FUSED_LSTM_TARGETS"]

ops = ms.ops
mint = ms.mint

# --- 2-D convolution: which formulation (torch/_ops/conv.py implements both) -------------
# On CPU the choice is measured on this host the first time a shape is seen and cached
# per machine (``_tuning``; ``_conv2d_plan_tuned``).  The constants below are the plan
# when measuring is off (``MSNB_KERNEL_TUNING=0``) and the starting point of the
# measurement (the chunk it tries).  Measured with benchmarks/conv_kernels.py [--sweep] (2-core CPU host, MindSpore 2.10):
# the native CPU Conv2D / Conv2DBackpropInput kernels run at ~0.1-0.2 GMAC/s, so above a
# few million multiply-adds im2col + matmul wins (13-120x on the batch-128 shapes there);
# below, im2col's dozen kernel launches cost more than the whole native convolution.
#: Largest column tensor (bytes) the CPU im2col convolution builds at once; a batch
#: whose columns are bigger runs in equal chunks of samples.  Chunks of 72-288 MB ran
#: within noise of each other, 576 MB ~25% slower, 18-36 MB up to 2-3x slower.
CONV2D_COLUMN_BYTES = 256 << 20
#: Multiply-adds from which im2col beats the native CPU forward kernel (crossover
#: measured at 1-2.5 M: batch 1 of a LeNet layer ties, batch 2 im2col is 1.5x faster) ...
CONV2D_IM2COL_FORWARD_MACS = 2_000_000
#: ... and the native input-gradient kernel (crossover measured at 5-10 M).
CONV2D_IM2COL_GRAD_INPUT_MACS = 8_000_000
_IM2COL_ITEMSIZE = {ms.float16: 2, ms.float32: 4, ms.float64: 8}


def _conv2d_plan_native(x_dtype, w_dtype, x_shape, w_shape, out_hw, groups, geometry=None):
    """MindSpore's own convolution kernels for every pass."""
    return "native", "native", "native", x_shape[0]


def _conv2d_plan_cpu(x_dtype, w_dtype, x_shape, w_shape, out_hw, groups):
    """``(forward, grad_input, grad_weight, chunk)``: ``"im2col"`` or
    ``"native"`` for each pass, and the samples per im2col chunk.

    The filter gradient stays native in PyNative: ``Conv2DBackpropFilter``
    measured 1.3-10x faster than the matmul formulation on every shape
    tried.  Inside a graph being recorded (graph mode) it takes im2col with
    the forward: there the native kernel measured 231 ms per call on LeNet's
    first layer (16 ms in PyNative, 18 ms im2col in the same graph), and the
    LeNet graph-mode step 1.4-2.3x faster with im2col.  A 1x1
    stride-1 unpadded convolution is a matmul inside the native kernel too
    (native 6-10 ms vs 50-110 ms for the transposes im2col needs).  float64
    has no native CPU kernel, so it always takes im2col (one sample at a
    time if need be); dtypes im2col cannot compute (bfloat16, integers) and
    mixed dtypes stay native, which reports the error PyTorch users expect."""
    n, c, h, w = x_shape
    itemsize = _IM2COL_ITEMSIZE.get(x_dtype)
    if itemsize is None or w_dtype != x_dtype:
        return _conv2d_plan_native(x_dtype, w_dtype, x_shape, w_shape, out_hw, groups)
    o, cg, kh, kw = w_shape
    positions = out_hw[0] * out_hw[1]
    # forward columns (C, K, L) and the input-gradient gather (K, C, H*W), per sample
    per_sample = itemsize * c * kh * kw * max(positions + 1, h * w)
    chunk = min(n, CONV2D_COLUMN_BYTES // per_sample)
    if chunk < n:  # equal chunks: 128 samples at 113 per chunk run as 64 + 64
        chunk = -(-n // -(-n // max(chunk, 1)))
    if itemsize == 8:
        return "im2col", "im2col", "im2col", chunk
    macs = n * o * cg * kh * kw * positions
    if per_sample > CONV2D_COLUMN_BYTES or (kh * kw == 1 and positions == h * w):
        return _conv2d_plan_native(x_dtype, w_dtype, x_shape, w_shape, out_hw, groups)
    fwd = "im2col" if macs >= CONV2D_IM2COL_FORWARD_MACS else "native"
    return (fwd, "im2col" if macs >= CONV2D_IM2COL_GRAD_INPUT_MACS else "native",
            "im2col" if fwd == "im2col" and trace_open() else "native", chunk)


def _valid_conv_choice(c) -> bool:
    return (isinstance(c, list) and len(c) == 4 and all(k in ("native", "im2col") for k in c[:3])
            and isinstance(c[3], int) and not isinstance(c[3], bool) and c[3] >= 1)


def _fastest_conv(times, n):
    """``[forward, grad_input, grad_weight, chunk]`` from ``conv.time_formulations``' seconds."""
    chunks = [int(k.split("/")[1]) for k in times["forward"] if k.startswith("im2col/")]
    chunk = min(chunks, key=lambda c: times["forward"][f"im2col/{c}"] + times["grad_input"][f"im2col/{c}"])
    pick = [("im2col" if times[p][f"im2col/{chunk}"] < times[p]["native"] else "native")
            for p in ("forward", "grad_input", "grad_weight")]
    return [*pick, chunk if "im2col" in pick else n]


def _conv2d_plan_tuned(x_dtype, w_dtype, x_shape, w_shape, out_hw, groups, geometry=None):
    """The CPU plan, measured on this host: where :func:`_conv2d_plan_cpu` has a
    speed choice to make (float16/float32, columns within the budget), the
    formulation and chunk that ran fastest the first time this shape was seen
    (``_tuning``: cached per machine, ``MSNB_KERNEL_TUNING=0`` for the constants).

    The chunk candidates are the column budget's chunk and half of it.  Inside
    a graph being recorded an im2col forward brings an im2col filter gradient
    (the native one measured 10x+ slower in a graph than in PyNative, where it
    is measured)."""
    plan = _conv2d_plan_cpu(x_dtype, w_dtype, x_shape, w_shape, out_hw, groups)
    if geometry is None or x_dtype not in (ms.float16, ms.float32) or w_dtype != x_dtype:
        return plan
    n = x_shape[0]
    itemsize = _IM2COL_ITEMSIZE[x_dtype]
    per_sample = itemsize * x_shape[1] * w_shape[2] * w_shape[3] * max(out_hw[0] * out_hw[1] + 1,
                                                                         x_shape[2] * x_shape[3])
    if per_sample > CONV2D_COLUMN_BYTES:
        return plan
    budget_chunk = min(n, CONV2D_COLUMN_BYTES // per_sample)
    chunks = sorted({budget_chunk, max(1, budget_chunk // 2)})
    key = (f"conv2d {x_dtype} x{tuple(x_shape)} w{tuple(w_shape)} groups={groups} "
           f"{geometry[0]} pad={geometry[1]} stride={tuple(geometry[2])} dilation={tuple(geometry[3])}")

    def measure():
        from .torch._ops.conv import time_formulations
        return _fastest_conv(time_formulations(x_dtype, x_shape, w_shape, geometry, groups, chunks), n)

    default = list(plan)
    fwd, gx, gw, chunk = _tuning.choose(key, default, measure, _valid_conv_choice)
    if fwd == "im2col" and trace_open():
        gw = "im2col"
    return fwd, gx, gw, chunk


# --- CPU kernels that need a guard to compute what PyTorch computes ------------------------

_COMPLEX = (ms.complex64, ms.complex128)
_mint_empty = mint.empty


def _cast_cpu(x, dtype):
    """``x`` converted to ``dtype``, the values MindSpore's Cast gives (bit for bit on every pair of
    float16/bfloat16/float32/float64/int8/16/32/64/uint8/bool dtypes, NaN/inf/-0.0/overflow
    included: tests/adapter/test_dispatch_kernels.py) in a fraction of its time.

    MindSpore 2.10's CPU Cast spends ~2 ms per call picking its kernel (PyBoostUtils::SelectKernel
    rebuilds Cast's list of every dtype pair on each call; py-spy), whatever the size: more
    than ten ordinary small kernels.  Copying into a fresh tensor of the target dtype
    (``InplaceCopy`` converts) costs one ordinary kernel (benchmarks/op_overhead.py --kernels).
    Complex dtypes and graphs being recorded keep Cast."""
    if dtype in _COMPLEX or trace_open():
        return ops.cast(x, dtype)
    src = x.dtype
    if src == dtype:
        return x
    if src in _COMPLEX:
        return ops.cast(x, dtype)
    return _mint_empty(x.shape, dtype=dtype).copy_(x)


def _tanh_cpu(x):
    """MindSpore's float32 CPU tanh is off by up to 1e-4 (tanh(5) = 1.0000098); float64 is exact:
    float16/32 inputs are computed in float64 and rounded once."""
    d = x.dtype
    if d in (ms.float32, ms.float16):
        return _cast_cpu(ops.tanh(_cast_cpu(x, ms.float64)), d)
    return ops.tanh(x)


_NE_FLOATS = (ms.float32, ms.float64, ms.float16)  # CPU NotEqual has no bfloat16


# PyBoost primitives called directly (no MindSpore Python frames in between) outside traces
_relu_k, _select_k, _ne_k = (primitive_kernel(n) for n in ("relu_op", "select_op", "not_equal_op"))
#: ``ops.div`` without a rounding mode is this primitive
_div_k = primitive_kernel("div_op")
_add_ext_k = primitive_kernel("add_ext_op")
#: what ``ops.matmul`` runs, through its PyBoost function (one Python call, not three)
_matmul_ext_k = primitive_kernel("matmul_ext_op")


_eq_k, _mul_k, _reciprocal_k = (primitive_kernel(n) for n in ("equal_op", "mul_op", "reciprocal_op"))
_DIV_FLOATS = (ms.float32, ms.float64, ms.float16, ms.bfloat16)


def _true_div_cpu(x, y):
    """``x / y`` with IEEE signs at a zero divisor, as PyTorch: MindSpore's CPU Div gives ``x / -0.0``
    the sign of ``x`` alone (``1 / -0.0`` is ``+inf``), and ``nan / 0.0`` infinite.  Where ``y``
    is zero the quotient is ``x * (1 / y)``, whose reciprocal keeps the zero's sign (``0 * inf``
    and NaN stay NaN)."""
    if type(y) is float or type(y) is int:
        return _mul_k(x, math.copysign(math.inf, y)) if y == 0 else _div_k(x, y)
    q = _div_k(x, y)
    if isinstance(y, ms.Tensor) and y.dtype in _DIV_FLOATS:
        return _select_k(_eq_k(y, 0), _mul_k(x, _reciprocal_k(y)), q)
    return q


def _add_alpha_cpu(x, y, alpha=1):
    """``mint.add(x, y, alpha=alpha)``: the same AddExt kernel through its PyBoost function (``mint.add``
    dispatches through MindSpore's older primitive path, ~2 ms a call on a loaded host here)."""
    return _add_ext_k(x, y, alpha)


def _isnan_cpu(x):
    """``ops.isnan`` takes MindSpore's older primitive path (up to ~1 ms a call here);
    ``x != x`` (``mint.isnan``'s PyBoost kernel) gives the same answer where it has a kernel."""
    return _ne_k(x, x) if x.dtype in _NE_FLOATS else ops.isnan(x)


_RELU_NAN = (ms.float32, ms.float64, ms.float16, ms.bfloat16)


def _relu_cpu(x):
    """MindSpore's relu maps NaN to 0; PyTorch keeps NaN."""
    y = _relu_k(x)
    d = x.dtype
    if d in _RELU_NAN:
        return _select_k(_ne_k(x, x) if d in _NE_FLOATS else ops.isnan(x), x, y)
    return y


def _relu_float_cpu(x):
    """:func:`_relu_cpu` for a float16/float32/float64 ``x`` (the caller knows its dtype): no
    read of ``x``'s dtype from MindSpore (~0.3 us here), which the one-step path of
    ``Tensor.relu`` has recorded already."""
    return _select_k(_ne_k(x, x), x, _relu_k(x))


def _softmax_cpu(x, axis):
    """MindSpore's CPU Softmax turns a slice that is all -inf into zeros and zeroes every slice
    after it (PyTorch: NaN for that slice only); subtracting the max first makes such a slice NaN,
    which the kernel handles, and leaves every other slice's result as it was.  A slice holding
    NaN or +inf (NaN once the max is subtracted) is NaN throughout in PyTorch; the kernel zeroes
    its other elements, so such slices are filled with NaN."""
    z = ops.sub(x, ops.amax(x, axis, True))
    return ops.masked_fill(ops.softmax(z, axis), ops.any(_isnan_cpu(z), axis, True), math.nan)


def _scatter_offsets(ishape, strides, axis):
    """Flat offset of every index position with its ``axis`` coordinate left out (a constant:
    built on the host, so graphs being recorded take it as one); small ones are kept."""
    size = 1
    for n in ishape:
        size *= n
    return _scatter_offsets_kept(ishape, strides, axis) if size <= 1 << 16 else _scatter_offsets_built(
        ishape, strides, axis)


def _scatter_offsets_built(ishape, strides, axis):
    import numpy as np
    off = np.zeros(ishape, np.int64)
    for k, n in enumerate(ishape):
        if k != axis and n > 1:
            along = [1] * len(ishape)
            along[k] = n
            off = off + (np.arange(n, dtype=np.int64) * strides[k]).reshape(along)
    return ms.Tensor(off) if off.any() else None


_scatter_offsets_kept = functools.lru_cache(maxsize=128)(_scatter_offsets_built)


def _scatter_elements_cpu(x, indices, updates, axis, reduction="none"):
    """MindSpore's CPU TensorScatterElements with ``reduction="add"`` splits the updates across
    threads without atomic adds: with repeated indices it loses updates now and then (100,000
    updates into 5 slots: 23 of 300 runs wrong; a RoIAlign gradient of 1,152 updates on a loaded
    host once).  Adds go through ScatterNd on flat positions instead, which accumulates repeated
    indices (0 wrong in 900 of those runs; benchmarks/scatter_add_race.py repeats both); other
    reductions keep the kernel.  bool adds (logical or) run in int32."""
    if reduction != "add":
        return ops.tensor_scatter_elements(x, indices, updates, axis, reduction)
    shape = tuple(x.shape)
    if 0 in tuple(indices.shape):
        return ops.deepcopy(x)
    nd = len(shape)
    strides = [1] * nd
    for k in range(nd - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    flat = ops.cast(indices, ms.int64)
    if strides[axis] != 1:
        flat = ops.mul(flat, ms.Tensor(strides[axis], ms.int64))
    base = _scatter_offsets(tuple(indices.shape), tuple(strides), axis)
    if base is not None:
        flat = ops.add(flat, base)
    size = 1
    for n in shape:
        size *= n
    as_bool = x.dtype == ms.bool_
    upd = ops.cast(updates, ms.int32) if as_bool else updates
    added = ops.reshape(ops.scatter_nd(ops.reshape(flat, (-1, 1)), ops.reshape(upd, (-1,)), (size,)), shape)
    if as_bool:
        return ops.logical_or(x, ops.cast(added, ms.bool_))
    return ops.add(x, added)


def _empty_inner(a, b):
    return 0 in (a.shape[-1], b.shape[-2] if b.ndim > 1 else b.shape[0])


def _zeros_product(a, b):
    """``a @ b`` with an empty inner dimension: zeros (MindSpore returns uninitialised memory)."""
    import numpy as np
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    return ops.zeros(tuple(batch) + (a.shape[-2], b.shape[-1]), a.dtype)


def _matmul_cpu(a, b):
    return _zeros_product(a, b) if _empty_inner(a, b) else ops.matmul(a, b)


def _bmm_cpu(a, b):
    return _zeros_product(a, b) if _empty_inner(a, b) else ops.bmm(a, b)


_F32 = ms.float32
#: ``x @ w.T`` without a transposed copy of ``w`` (the float32 ``linear`` forward, see ``_dense_cpu``)
_MATMUL_NT = ops.MatMul(transpose_b=True)


def _dense_cpu(x, w, b=None):
    shape = x.shape
    if shape[-1] == 0 or 0 in w.shape:
        out = ops.zeros(tuple(shape[:-1]) + (w.shape[0],), x.dtype)
        return out if b is None else ops.add(out, b)
    if x.dtype is _F32 and w.dtype is _F32 and (b is None or b.dtype is _F32) and len(w.shape) == 2:
        # MindSpore's CPU Dense kernel gives the values of MatMul(transpose_b) + Add bit for bit
        # (tests/adapter/test_dispatch_kernels.py) at 1.0-2.4x their CPU time: 1.6 vs 0.7 ms for
        # 100x784 @ 784x256, 130 vs 97 us for a 2x3x8 input (benchmarks/op_overhead.py mlp_step)
        x2 = x if len(shape) == 2 else ops.reshape(x, (-1, shape[-1]))
        out = _MATMUL_NT(x2, w)
        if len(shape) != 2:
            out = ops.reshape(out, tuple(shape[:-1]) + (w.shape[0],))
        return out if b is None else ops.add(out, b)
    return ops.dense(x, w, b)


def _flip_cpu(x, dims):
    """MindSpore's flip of an empty tensor dies with SIGFPE: an empty tensor flips to itself."""
    if 0 in x.shape:
        return ops.deepcopy(x)
    return ops.flip(x, dims)


def _copy_cpu(x):
    """MindSpore's CPU copy kernel has no bfloat16: such a tensor is copied through float32 (exact)."""
    try:
        return ops.deepcopy(x)
    except TypeError:  # (the kernel is refused at launch; other dtypes never pay for this check)
        if x.dtype != ms.bfloat16:
            raise
        return _cast_cpu(_cast_cpu(x, ms.float32), ms.bfloat16)


def _empty_guard(kernel):
    """MindSpore's CPU tril/triu refuse a matrix with no columns: an empty tensor maps to itself."""
    def run(x, *args):
        if 0 in x.shape:
            return ops.deepcopy(x)
        return kernel(x, *args)
    return run


# --- fused LSTM (nn.LSTM, one layer and direction per call) ------------------------------
#: devices where ``K.lstm`` / ``K.lstm_grad`` are MindSpore's fused LSTM kernels with the
#: weight layout of ``_ms.lstm_prims`` (GPU's cuDNN kernel takes the biases apart: not wired;
#: Ascend has no such kernel), and the dtypes they compute PyTorch's values in
FUSED_LSTM_TARGETS = frozenset({"CPU"})
FUSED_LSTM_DTYPES = (ms.float32,)


def _lstm_cpu(x, h0, c0, w, input_size, hidden_size, has_bias, proj_size):
    """``(y, h_n, c_n, reserve)`` of one LSTM layer over ``x`` (T, B, I); ``h0``/``c0`` (1, B, .)."""
    return lstm_prims(input_size, hidden_size, has_bias, proj_size)[0](x, h0, c0, w)[:4]


def _lstm_grad_cpu(x, h0, c0, w, y, hn, cn, dy, dhn, dcn, reserve, input_size, hidden_size, has_bias,
                   proj_size):
    """``(dx, dh0, dc0, dw)``: the fused LSTM's vector-Jacobian product from its saved ``reserve``."""
    return lstm_prims(input_size, hidden_size, has_bias, proj_size)[1](x, h0, c0, w, y, hn, cn, dy, dhn, dcn,
                                                                       reserve)


# name: (cpu, ascend or None)
TABLE = {
    # pointwise
    "add": (ops.add, mint.add), "sub": (ops.sub, mint.sub), "mul": (ops.mul, mint.mul),
    # ``x + alpha * y`` rounded once (PyTorch's ``add(alpha=)``): on CPU bit for bit PyTorch's for
    # float32 with a Python number ``alpha``; float64/float16 round ``alpha`` or the result
    # otherwise (tests/adapter/torch/optim/test_add_alpha_rounding.py)
    "add_alpha": (_add_alpha_cpu, mint.add),
    "div": (_div_k, mint.div), "true_div": (_true_div_cpu, mint.div), "neg": (ops.neg, mint.neg), "pow": (ops.pow, mint.pow),
    "exp": (ops.exp, mint.exp), "log": (ops.log, mint.log), "sqrt": (ops.sqrt, mint.sqrt),
    "rsqrt": (ops.rsqrt, mint.rsqrt), "abs": (ops.abs, mint.abs), "sign": (ops.sign, mint.sign),
    "sin": (ops.sin, mint.sin), "cos": (ops.cos, mint.cos), "tan": (ops.tan, None),
    "tanh": (_tanh_cpu, mint.tanh), "sigmoid": (ops.sigmoid, mint.sigmoid),
    # ``matmul`` for operands whose inner dimension is known not to be 0 (no zero-size guard)
    "matmul_nonempty": (_matmul_ext_k, mint.matmul),
    "relu": (_relu_cpu, mint.nn.functional.relu), "relu_float": (_relu_float_cpu, mint.nn.functional.relu),
    "floor": (ops.floor, mint.floor),
    "ceil": (ops.ceil, mint.ceil), "round": (ops.round, mint.round), "trunc": (ops.trunc, None),
    "reciprocal": (ops.reciprocal, mint.reciprocal), "erf": (ops.erf, mint.erf),
    "log1p": (ops.log1p, mint.log1p), "expm1": (ops.expm1, mint.expm1),
    "asin": (ops.asin, None), "acos": (ops.acos, None), "atan": (ops.atan, None),
    "atan2": (ops.atan2, None), "sinh": (ops.sinh, None), "cosh": (ops.cosh, None),
    "floor_divide": (ops.floor_divide, None), "remainder": (ops.remainder, None),
    "fmod": (ops.fmod, None), "maximum": (ops.maximum, mint.maximum),
    "minimum": (ops.minimum, mint.minimum), "clamp": (ops.clamp, mint.clamp),
    "where": (ops.where, mint.where),
    "eq": (ops.equal, mint.eq), "ne": (ops.not_equal, mint.ne), "lt": (ops.less, mint.lt),
    "le": (ops.less_equal, mint.le), "gt": (ops.greater, mint.gt), "ge": (ops.greater_equal, mint.ge),
    "logical_and": (ops.logical_and, mint.logical_and), "logical_or": (ops.logical_or, mint.logical_or),
    "logical_not": (ops.logical_not, mint.logical_not), "logical_xor": (ops.logical_xor, None),
    "bitwise_and": (ops.bitwise_and, None), "bitwise_or": (ops.bitwise_or, None),
    "bitwise_xor": (ops.bitwise_xor, None),
    "isnan": (_isnan_cpu, mint.isnan), "isinf": (ops.isinf, None), "isfinite": (ops.isfinite, mint.isfinite),
    "cast": (_cast_cpu, None),
    # reductions
    "sum": (ops.sum, None), "mean": (ops.mean, None), "prod": (ops.prod, None),
    "amax": (ops.amax, None), "amin": (ops.amin, None), "argmax": (ops.argmax, None),
    "argmin": (ops.argmin, None), "all": (ops.all, None), "any": (ops.any, None),
    "cumsum": (ops.cumsum, None), "cumprod": (ops.cumprod, None),
    "logsumexp": (ops.logsumexp, None), "max_dim": (ops.max, None), "min_dim": (ops.min, None),
    "topk": (ops.topk, None), "sort": (ops.sort, None), "std": (ops.std, None),
    "var": (ops.var, None),
    # shape
    "reshape": (ops.reshape, None), "transpose": (ops.transpose, None),
    "expand_dims": (ops.expand_dims, None), "squeeze": (ops.squeeze, None),
    "broadcast_to": (ops.broadcast_to, None), "tile": (ops.tile, None),
    "concat": (ops.cat, None), "stack": (ops.stack, None), "flip": (_flip_cpu, None),
    "gather_elements": (ops.gather_elements, None), "tensor_scatter_elements": (_scatter_elements_cpu, ops.tensor_scatter_elements),
    "index_select": (ops.gather, None), "roll": (ops.roll, None), "tril": (_empty_guard(ops.tril), None),
    "triu": (_empty_guard(ops.triu), None), "masked_fill": (ops.masked_fill, None), "pad": (ops.pad, None),
    "identity": (_copy_cpu, None),
    # linear algebra
    "matmul": (_matmul_cpu, mint.matmul), "bmm": (_bmm_cpu, mint.bmm),
    # ``a.T @ b`` of two 2-D float tensors (linear's weight gradient), no transposed copy of ``a``
    "matmul_tn": (ops.MatMul(transpose_a=True), None),
    # creation / random
    "zeros": (ops.zeros, mint.zeros), "ones": (ops.ones, mint.ones), "fill": (ops.fill, None),
    "zeros_like": (ops.zeros_like, None), "ones_like": (ops.ones_like, None),
    # nn
    "softmax": (_softmax_cpu, mint.softmax), "log_softmax": (ops.log_softmax, None),
    "conv2d": (ops.conv2d, None), "conv1d": (ops.conv1d, None), "conv3d": (ops.conv3d, None),
    "conv2d_plan": (_conv2d_plan_tuned, _conv2d_plan_native),
    "lstm": (_lstm_cpu, None), "lstm_grad": (_lstm_grad_cpu, None),  # only where FUSED_LSTM_TARGETS
    "conv_transpose2d": (ops.conv_transpose2d, None),
    "max_pool2d": (ops.max_pool2d, None), "avg_pool2d": (ops.avg_pool2d, None),
    "gelu": (ops.gelu, None), "silu": (ops.silu, None), "leaky_relu": (ops.leaky_relu, None),
    "elu": (ops.elu, None), "softplus": (ops.softplus, None),
    "dense": (_dense_cpu, mint.nn.functional.linear),
    # primitive class (built once per configuration by nn.functional): no functional CPU form
    "conv2d_transpose_prim": (ops.Conv2DTranspose, None),
    "split": (ops.split, mint.split), "unstack": (ops.unstack, None),
    # torch.linalg: MindSpore kernels where they compute PyTorch's answer, else the host
    # (msnb/adapter/_host.py says why for each)
    "inv_ex": (host.inv_ex, None), "solve_ex": (host.solve_ex, None), "cholesky_ex": (host.cholesky_ex, None),
    "svd": (host.svd, None), "eigh": (host.eigh, None), "eigvals": (host.eigvals, None), "eigvals_grad": (host.eigvals_grad, None),
    "eig": (host.eig, None), "eig_grad": (host.eig_grad, None),
    "det_cofactor": (host.det_cofactor, None), "pinv": (host.pinv, None),
    "solve_triangular": (host.solve_triangular, None), "matrix_exp": (host.matrix_exp, None),
    "det": (ops.det, None), "slogdet": (ops.slogdet, None), "qr": (ops.qr, mint.linalg.qr),
    # torch.fft (MindSpore's CPU FFT kernels; mint has no fft module)
    "fft": (ops.fft, None), "ifft": (ops.ifft, None), "rfft": (ops.rfft, None), "irfft": (ops.irfft, None),
    "fftn": (ops.fftn, None), "ifftn": (ops.ifftn, None), "rfftn": (ops.rfftn, None),
    "irfftn": (ops.irfftn, None),
    # complex numbers
    "real": (ops.real, mint.real), "imag": (ops.imag, mint.imag), "conj": (ops.conj, None),
    "complex": (ops.Complex(), None), "complex_abs": (ops.ComplexAbs(), None), "angle": (ops.angle, None),
    # torch.special
    # (host: MindSpore's CPU erfinv is off by up to 0.33 near +-1, its digamma by up to 0.58 for
    # negative x; polygamma follows digamma)
    "erfinv": (host.special_fn("erfinv"), mint.erfinv), "erfc": (ops.erfc, mint.erfc),
    "lgamma": (ops.lgamma, None), "digamma": (host.special_fn("psi"), None),
    "polygamma": (host.special_fn("polygamma"), None), "sinc": (ops.sinc, mint.sinc), "i0": (ops.bessel_i0, None),
    "i0e": (ops.bessel_i0e, None), "i1": (ops.bessel_i1, None), "i1e": (ops.bessel_i1e, None),
    "bessel_j0": (ops.bessel_j0, None), "bessel_j1": (ops.bessel_j1, None), "zeta": (ops.zeta, None),
    # more elementwise ops (torch/_ops/elementwise.py)
    "acosh": (ops.acosh, None), "asinh": (ops.asinh, None), "atanh": (ops.atanh, None),
    "nextafter": (ops.nextafter, None), "igamma": (ops.igamma, None), "igammac": (ops.igammac, None),
    # ... and on the host (scipy.special) where MindSpore 2.10 has no CPU kernel
    **{f"scipy_{n}": (host.special_fn(n), None) for n in (
        "erfcx", "log_ndtr", "ndtri", "y0", "y1", "k0", "k1", "k0e", "k1e", "gammainc", "gammaincc",
        "spherical_j0", "airy_ai")},
}

# torch.special orthogonal polynomials: no MindSpore kernel; PyTorch's recurrences on the host
TABLE.update({f"poly_{k}": (host.orthogonal_polynomial(k), None) for k in (
    "chebyshev_t", "chebyshev_u", "chebyshev_v", "chebyshev_w", "shifted_chebyshev_t", "shifted_chebyshev_u",
    "shifted_chebyshev_v", "shifted_chebyshev_w", "hermite_h", "hermite_he", "laguerre_l", "legendre_p")})


class _Kernels:
    """Attribute bag: ``K.add`` is the kernel for the current device.  Every kernel set on
    ``K`` (by :func:`select`, a profiler hook, a test's monkeypatch) also sets ``KA``'s
    entry of that name: the same kernel with its plain result re-classed as an adapter
    tensor (``_ms.adapted``), which the one-step paths of elementwise ops call."""

    device = None

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if self is K and name != "device" and name not in _NOT_KERNELS and callable(value):
            object.__setattr__(KA, name, adapted(value))
            KD[name] = direct_target(value)


K = _Kernels()
#: ``KA.add``: ``K.add`` returning an adapter tensor (kept in step with ``K``, see ``_Kernels``)
KA = _Kernels()
#: ``KD["add"]``: ``(pyboost_function, primitive)`` while ``K.add`` is MindSpore's PyBoost
#: kernel called directly (``_ms.direct_target``), else None (a hook, a monkeypatch, a
#: composed kernel): the one-step elementwise ops then call ``KA.add`` instead
KD: dict = {}


#: entries that are not MindSpore kernels called with tensors (plans, primitive classes)
_NOT_KERNELS = frozenset({"conv2d_plan", "conv2d_transpose_prim"})


def select(target: str | None = None) -> str:
    """Bind every kernel for ``target`` (default: MindSpore's current device).
    Kernels get adapter tensors as plain MindSpore tensors (``_ms.plain_args``)."""
    target = target or device_target()
    use_ascend = target == "Ascend"
    for name, (cpu, ascend) in TABLE.items():
        kernel = ascend if (use_ascend and ascend is not None) else cpu
        setattr(K, name, kernel if name in _NOT_KERNELS else plain_args(kernel))
    K.device = target
    if _HOOK[0] is not None:
        _wrap_all(_HOOK[0])
    return target


#: ``[hook]``: while a profiler records, ``hook(name, kernel)`` wraps every kernel (None: kernels unwrapped)
_HOOK = [None]
_UNWRAPPED: dict = {}


def _wrap_all(hook):
    _UNWRAPPED.clear()
    for name in TABLE:
        if name not in _NOT_KERNELS:
            kernel = getattr(K, name)
            _UNWRAPPED[name] = kernel
            setattr(K, name, hook(name, kernel))


def set_kernel_hook(hook) -> None:
    """Wrap every kernel of ``K`` with ``hook(name, kernel)`` (torch.profiler's
    timing), or with ``None`` put the plain kernels back: outside a profile the
    kernels are called directly, at no cost."""
    if _HOOK[0] is not None:
        for name, kernel in _UNWRAPPED.items():
            setattr(K, name, kernel)
        _UNWRAPPED.clear()
    _HOOK[0] = hook
    if hook is not None:
        _wrap_all(hook)


select()
