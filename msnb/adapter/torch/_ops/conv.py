"""2-D convolution with a hand-written backward that computes only the
gradients that are needed -- an input image needs none.

Two formulations, chosen per call by ``K.conv2d_plan`` (``_dispatch``, the
one place that picks kernels by device):

* ``"native"``: MindSpore's ``Conv2D`` and its gradient kernels
  ``Conv2DBackpropInput`` / ``Conv2DBackpropFilter`` (Ascend, and the
  filter gradient on CPU, where that kernel is fast);
* ``"im2col"``: a gather of every receptive field into a column tensor and
  one matrix product, the input gradient as the transposed product followed
  by a gather-and-sum back onto the image (col2im).  On batches of 128,
  MindSpore's CPU ``Conv2D`` and ``Conv2DBackpropInput`` run 10-100x slower
  than this (``benchmarks/conv_kernels.py``).

Layout of the im2col path (why it looks the way it does):

* the batch is the *innermost* axis of the column tensor, ``(C, K*L, N)``:
  a gather along the spatial axis then moves runs of ``N`` values instead of
  single floats, and the product with the ``(O, C*K)`` weight is one 2-D
  matmul instead of a batched one -- both measured faster than an NCHW
  column tensor even after paying for the transposes in and out;
* padding never materialises a padded image: one zero slot is appended to
  the flattened spatial axis and every index that falls outside the image
  points at it.  The backward uses the same trick on the output gradient,
  so strided and dilated convolutions need no zero-stuffing;
* col2im is a gather too (no scatter-add, no write conflicts): for every
  input pixel and kernel tap the index of the output position that read it
  (or the zero slot), gathered per tap (``batch_dims=1``) and summed over
  the tap axis.  The tap axis is the leading one because MindSpore's CPU
  reduction over a middle axis measured 10-25x slower than over the first;
  for strided convolutions this also beat gathering only the taps that hit.

The indices depend only on shapes, so they are built once per geometry
(host integers, never tensor values) and cached.  Everything applied to
tensors is a MindSpore op, so the same code can be recorded by MindSpore's
trace recorder.
"""

from __future__ import annotations

import functools

import numpy as np

from ..._ms import conv2d_prims, ms
from .._core import STATE, K, needs_grad, record, wrap

__all__ = ["conv2d", "differentiable_grads", "conv2d_geometry", "im2col_forward", "im2col_grad_input", "im2col_grad_weight",
           "time_formulations"]

ops = ms.ops
_MM_TB = ops.MatMul(transpose_b=True)
_BMM_TB = ops.BatchMatMul(transpose_b=True)
_INT = np.int32


def conv2d(x, weight, pad_mode, pad, stride, dilation, groups):
    """Convolution of an NCHW batch ``x`` (no bias).

    ``pad_mode`` is ``"valid"``, ``"same"`` or ``"pad"`` with ``pad`` =
    (top, bottom, left, right)."""
    stride, dilation = tuple(stride), tuple(dilation)
    pad = tuple(pad) if pad_mode == "pad" else 0
    xs, ws = tuple(x.shape), tuple(weight.shape)
    pads, out_hw = conv2d_geometry(xs[2:], ws[2:], pad_mode, pad, stride, dilation)
    fwd_k, gx_k, gw_k, chunk = K.conv2d_plan(x.dtype, weight.dtype, xs, ws, out_hw, groups,
                                             geometry=(pad_mode, pad, stride, dilation))
    geo = (pads, stride, dilation, groups, chunk)

    def native(i):  # MindSpore's forward (0), input-gradient (1) or filter-gradient (2) kernel
        return conv2d_prims(ws[0], tuple(ws[2:]), pad_mode, pad, stride, dilation, groups)[i]

    out = wrap(im2col_forward(x, weight, *geo) if fwd_k == "im2col" else native(0)(x, weight))
    if needs_grad(x, weight):
        def bw(g):
            if STATE.enabled:  # create_graph: the gradients as recorded convolutions (double backward)
                return differentiable_grads(g, x, weight, pads, stride, dilation, groups)
            gx = gw = None
            if x.requires_grad:
                gx = wrap(im2col_grad_input(g, xs, weight, *geo) if gx_k == "im2col" else
                          native(1)(g, weight, xs))
            if weight.requires_grad:
                gw = wrap(im2col_grad_weight(g, x, ws, *geo) if gw_k == "im2col" else
                          native(2)(g, x, ws))
            return gx, gw
        record("ConvolutionBackward0", out, (x, weight), bw, saved=(x, weight))
    return out



def _pad_dim(t, dim, before, after):
    """``t`` with ``before``/``after`` zeros added along ``dim`` (a negative count crops instead)."""
    from .creation import zeros
    from .shape import cat, narrow
    if before < 0 or after < 0:
        n = t.shape[dim]
        t = narrow(t, dim, max(0, -before), n - max(0, -before) - max(0, -after))
        before, after = max(0, before), max(0, after)
    parts = []
    for k in (before, None, after):
        if k is None:
            parts.append(t)
        elif k:
            parts.append(zeros(tuple(t.shape[:dim]) + (k,) + tuple(t.shape[dim + 1:]), dtype=t.dtype))
    return cat(parts, dim) if len(parts) > 1 else t


def _zero_stuffed(t, dim, s):
    """``s - 1`` zeros between neighbours along ``dim`` (a strided convolution's output gradient
    laid out on the stride-1 grid)."""
    from .creation import zeros_like
    from .shape import narrow, reshape, stack
    if s == 1:
        return t
    n = t.shape[dim]
    z = zeros_like(t)
    spread = reshape(stack([t] + [z] * (s - 1), dim + 1), tuple(t.shape[:dim]) + (n * s,) + tuple(t.shape[dim + 1:]))
    return narrow(spread, dim, 0, (n - 1) * s + 1)


def differentiable_grads(g, x, weight, pads, stride, dilation, groups):
    """The input and weight gradients of ``conv2d(x, weight)`` for the output gradient ``g``, each
    computed as a convolution this module records, so their own gradients exist (to any order):

    * input: ``g`` spread onto the stride-1 grid, padded by ``dilation * (k - 1) - pad``, convolved
      with the weight flipped in space and with its in/out channels swapped per group;
    * weight: the padded input, batch and channel axes swapped, convolved with ``g`` (batch and
      channel swapped) as the kernel, ``stride`` and ``dilation`` exchanging roles, then cropped to
      the kernel's size."""
    from .shape import flip, narrow, permute, reshape
    N, C, H, W = x.shape
    O, Cg, KH, KW = weight.shape
    G, Og = groups, O // groups
    OH, OW = g.shape[2], g.shape[3]
    gx = gw = None
    if x.requires_grad:
        gz = _zero_stuffed(_zero_stuffed(g, 2, stride[0]), 3, stride[1])
        for dim, k, d, p, n in ((2, KH, dilation[0], pads[0], H), (3, KW, dilation[1], pads[2], W)):
            before = d * (k - 1) - p
            gz = _pad_dim(gz, dim, before, n + d * (k - 1) - before - gz.shape[dim])
        wt = flip(reshape(permute(reshape(weight, (G, Og, Cg, KH, KW)), (0, 2, 1, 3, 4)), (G * Cg, Og, KH, KW)),
                  (2, 3))
        gx = conv2d(gz, wt, "valid", 0, (1, 1), dilation, G)
    if weight.requires_grad:
        xp = _pad_dim(_pad_dim(x, 2, pads[0], pads[1]), 3, pads[2], pads[3])
        Hp, Wp = xp.shape[2], xp.shape[3]
        xr = reshape(permute(reshape(xp, (N, G, Cg, Hp, Wp)), (2, 1, 0, 3, 4)), (Cg, G * N, Hp, Wp))
        gr = reshape(permute(reshape(g, (N, G, Og, OH, OW)), (1, 2, 0, 3, 4)), (G * Og, N, OH, OW))
        full = conv2d(xr, gr, "valid", 0, tuple(dilation), tuple(stride), G)
        gw = permute(narrow(narrow(full, 2, 0, KH), 3, 0, KW), (1, 0, 2, 3))
    return gx, gw


def conv2d_geometry(in_hw, kernel, pad_mode, pad, stride, dilation):
    """``((top, bottom, left, right), (OH, OW))`` as MindSpore's ``Conv2D``
    defines them for each pad mode ("same": output ``ceil(in / stride)``,
    the odd padding pixel at the bottom/right)."""
    if pad_mode == "pad":
        pads = tuple(pad)
    elif pad_mode == "same":
        pads = ()
        for i, k, s, d in zip(in_hw, kernel, stride, dilation):
            total = max(0, (-(-i // s) - 1) * s + d * (k - 1) + 1 - i)
            pads += (total // 2, total - total // 2)
    else:
        pads = (0, 0, 0, 0)
    return pads, _out_hw(in_hw, kernel, pads, stride, dilation)


# --- index tables (host integers from shapes only, cached) -------------------------------

@functools.lru_cache(maxsize=128)
def _forward_index(in_hw, kernel, pads, stride, dilation):
    """``(index, needs_zero_slot, identity)``: for each kernel tap and output
    position (tap-major, ``K*L``) the flat input position it reads, or
    ``H*W`` (the zero slot) where it reads padding."""
    (H, W), (kh, kw) = in_hw, kernel
    (OH, OW) = _out_hw(in_hw, kernel, pads, stride, dilation)
    iy = (np.arange(kh) * dilation[0])[:, None, None, None] + (np.arange(OH) * stride[0] - pads[0])[None, None, :, None]
    ix = (np.arange(kw) * dilation[1])[None, :, None, None] + (np.arange(OW) * stride[1] - pads[2])[None, None, None, :]
    inside = (iy >= 0) & (iy < H) & (ix >= 0) & (ix < W)
    idx = np.where(inside, iy * W + ix, H * W).reshape(-1)
    identity = idx.size == H * W and bool((idx == np.arange(H * W)).all())
    return ms.Tensor(idx.astype(_INT)), not bool(inside.all()), identity


@functools.lru_cache(maxsize=128)
def _input_grad_index(in_hw, kernel, pads, stride, dilation):
    """``(K, H*W)``: for each kernel tap and input pixel the flat output
    position that read the pixel through that tap, or ``L`` (the zero slot)."""
    (H, W), (kh, kw) = in_hw, kernel
    (OH, OW) = _out_hw(in_hw, kernel, pads, stride, dilation)
    ny = np.arange(H)[None, None, :, None] + pads[0] - (np.arange(kh) * dilation[0])[:, None, None, None]
    nx = np.arange(W)[None, None, None, :] + pads[2] - (np.arange(kw) * dilation[1])[None, :, None, None]
    oy, ox = ny // stride[0], nx // stride[1]
    hit = (ny % stride[0] == 0) & (nx % stride[1] == 0) & (oy >= 0) & (oy < OH) & (ox >= 0) & (ox < OW)
    idx = np.where(hit, oy * OW + ox, OH * OW).reshape(kh * kw, H * W)
    return ms.Tensor(idx.astype(_INT))


def _out_hw(in_hw, kernel, pads, stride, dilation):
    return tuple((i + pads[2 * a] + pads[2 * a + 1] - d * (k - 1) - 1) // s + 1
                 for a, (i, k, s, d) in enumerate(zip(in_hw, kernel, stride, dilation)))


def _batches(n, chunk):
    return [(i, min(chunk, n - i)) for i in range(0, n, chunk)]


def _nchw(t, c, h, w, n):
    """``(C, H*W, N)``-ordered values -> an ``(N, C, H, W)`` view."""
    return ops.transpose(ops.reshape(t, (c, h, w, n)), (3, 0, 1, 2))


def _join(parts):
    """Batch chunks -> one contiguous NCHW tensor.  MindSpore's transposes are
    views; copying once here spares every later reader the strided access."""
    return parts[0].contiguous() if len(parts) == 1 else ops.concat(parts, 0)


# --- im2col formulation (raw MindSpore tensors in, raw out) -------------------------------

def _columns(x, kernel, pads, stride, dilation):
    """``(C, K*L, N)`` column tensor of an NCHW batch."""
    n, c, h, w = x.shape
    idx, zero_slot, identity = _forward_index((h, w), kernel, pads, stride, dilation)
    xf = ops.reshape(x, (n, c, h * w))
    if zero_slot:
        xf = ops.concat((xf, ops.zeros((n, c, 1), xf.dtype)), 2)
    xt = ops.transpose(xf, (1, 2, 0))
    return xt if identity else ops.gather(xt, idx, 1)


def im2col_forward(x, weight, pads, stride, dilation, groups, chunk):
    """``conv2d(x, weight)`` as gather + matmul, ``chunk`` samples at a time."""
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    oh, ow = _out_hw((h, w), (kh, kw), pads, stride, dilation)
    ck = cg * kh * kw
    wm = ops.reshape(weight, (o, ck) if groups == 1 else (groups, o // groups, ck))
    outs = []
    for start, m in _batches(n, chunk):
        xb = x if m == n else ops.narrow(x, 0, start, m)
        col = _columns(xb, (kh, kw), pads, stride, dilation)
        if groups == 1:
            y = ops.matmul(wm, ops.reshape(col, (ck, oh * ow * m)))
        else:
            y = ops.bmm(wm, ops.reshape(col, (groups, ck, oh * ow * m)))
        outs.append(_nchw(y, o, oh, ow, m))
    return _join(outs)


def im2col_grad_input(g, x_shape, weight, pads, stride, dilation, groups, chunk):
    """Gradient of the input: columns of ``W^T g`` gathered back onto the image."""
    n, c, h, w = x_shape
    o, cg, kh, kw = weight.shape
    oh, ow = _out_hw((h, w), (kh, kw), pads, stride, dilation)
    k, l, og = kh * kw, oh * ow, o // groups
    # (K*C, O): rows tap-major, so the gathered taps end up on the leading axis
    if groups == 1:
        wk = ops.reshape(ops.transpose(weight, (2, 3, 1, 0)), (k * c, o))
    else:
        wk = ops.reshape(ops.transpose(ops.reshape(weight, (groups, og, cg, k)), (0, 3, 2, 1)), (groups, k * cg, og))
    plain = k == 1 and stride == (1, 1) and pads == (0, 0, 0, 0)  # 1x1: W^T g is the gradient
    idx = None if plain else _input_grad_index((h, w), (kh, kw), pads, stride, dilation)
    slot = 0 if plain else 1
    outs = []
    for start, m in _batches(n, chunk):
        gf = ops.reshape(g if m == n else ops.narrow(g, 0, start, m), (m, o, l))
        if slot:
            gf = ops.concat((gf, ops.zeros((m, o, 1), gf.dtype)), 2)
        gt = ops.transpose(gf, (1, 2, 0))  # (O, L+1, m)
        if groups == 1:
            gcol = ops.matmul(wk, ops.reshape(gt, (o, (l + slot) * m)))
        else:
            gcol = ops.bmm(wk, ops.reshape(gt, (groups, og, (l + slot) * m)))
            gcol = ops.transpose(ops.reshape(gcol, (groups, k, cg * (l + slot) * m)), (1, 0, 2))
        if plain:
            s = gcol
        else:
            gcol = ops.reshape(gcol, (k, c, l + 1, m))
            s = ops.gather(gcol, idx, 2, batch_dims=1)  # (K, C, H*W, m)
            s = ops.sum(s, 0) if k > 1 else ops.reshape(s, (c, h * w, m))
        outs.append(_nchw(s, c, h, w, m))
    return _join(outs)


def im2col_grad_weight(g, x, w_shape, pads, stride, dilation, groups, chunk):
    """Gradient of the weight: ``g`` times the transposed column tensor,
    summed over batch chunks."""
    n, c, h, w = x.shape
    o, cg, kh, kw = w_shape
    oh, ow = _out_hw((h, w), (kh, kw), pads, stride, dilation)
    ck, l, og = cg * kh * kw, oh * ow, o // groups
    total = None
    for start, m in _batches(n, chunk):
        xb, gb = (x, g) if m == n else (ops.narrow(x, 0, start, m), ops.narrow(g, 0, start, m))
        col = _columns(xb, (kh, kw), pads, stride, dilation)
        gt = ops.transpose(ops.reshape(gb, (m, o, l)), (1, 2, 0))
        if groups == 1:
            part = _MM_TB(ops.reshape(gt, (o, l * m)), ops.reshape(col, (ck, l * m)))
        else:
            part = _BMM_TB(ops.reshape(gt, (groups, og, l * m)), ops.reshape(col, (groups, ck, l * m)))
        total = part if total is None else total + part
    return ops.reshape(total, (o, cg, kh, kw))


# --- measuring the formulations (per-host kernel choice, see _dispatch) --------------------

def time_formulations(dtype, x_shape, w_shape, geometry, groups, chunks, repeat=2, budget=2.0):
    """Seconds per call of each pass in each formulation, on random data of these shapes:
    ``{"forward": {"native": s, "im2col/<chunk>": s, ...}, "grad_input": {...}, "grad_weight": {...}}``.

    ``geometry`` is ``(pad_mode, pad, stride, dilation)`` as :func:`conv2d` takes
    them.  Each candidate runs once untimed, then ``repeat`` times (the
    fastest counts); a candidate whose untimed run already took more than
    ``budget`` seconds is not repeated -- the native kernel can be very slow on
    some hosts and needs no second look.  Kernels run outside any open graph
    recording and are waited for (``_ms.sync``)."""
    import time

    from ..._ms import sync, untraced
    pad_mode, pad, stride, dilation = geometry
    stride, dilation = tuple(stride), tuple(dilation)
    pad = tuple(pad) if pad_mode == "pad" else 0
    pads, out_hw = conv2d_geometry(x_shape[2:], w_shape[2:], pad_mode, pad, stride, dilation)
    rng = np.random.default_rng(0)
    rand = lambda shape: ms.Tensor(rng.standard_normal(shape).astype(np.float32)).astype(dtype)  # noqa: E731
    fwd, bpi, bpf = conv2d_prims(w_shape[0], tuple(w_shape[2:]), pad_mode, pad, stride, dilation, groups)
    g_shape = (x_shape[0], w_shape[0], *out_hw)

    def once(fn):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        return time.perf_counter() - t0

    def clock(fn):
        first = once(fn)  # also builds the primitive and the gather indices
        return first if first > budget else min(once(fn) for _ in range(repeat))

    with untraced():
        x, w, g = rand(x_shape), rand(w_shape), rand(g_shape)
        times = {"forward": {"native": clock(lambda: fwd(x, w))},
                 "grad_input": {"native": clock(lambda: bpi(g, w, x_shape))},
                 "grad_weight": {"native": clock(lambda: bpf(g, x, w_shape))}}
        for c in chunks:
            geo = (pads, stride, dilation, groups, c)
            times["forward"][f"im2col/{c}"] = clock(lambda: im2col_forward(x, w, *geo))
            times["grad_input"][f"im2col/{c}"] = clock(lambda: im2col_grad_input(g, x_shape, w, *geo))
            times["grad_weight"][f"im2col/{c}"] = clock(lambda: im2col_grad_weight(g, x, w_shape, *geo))
    return times
