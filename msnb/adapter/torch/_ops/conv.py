"""2-D convolution with a hand-written backward that calls MindSpore's own
gradient kernels (``Conv2DBackpropInput`` / ``Conv2DBackpropFilter``) and
computes only the gradients that are needed -- an input image needs none.

Convolution dominates a CNN training step; differentiating the kernel with
``mindspore.ops.vjp`` on every call cost ~2x (it builds a graph per call and
always computes the input gradient)."""

from __future__ import annotations

from ..._ms import conv2d_prims
from .._core import needs_grad, record, wrap

__all__ = ["conv2d"]


def conv2d(x, weight, pad_mode, pad, stride, dilation, groups):
    """Convolution of an NCHW batch ``x`` (no bias).

    ``pad_mode`` is ``"valid"``, ``"same"`` or ``"pad"`` with ``pad`` =
    (top, bottom, left, right)."""
    fwd, bpi, bpf = conv2d_prims(weight.shape[0], tuple(weight.shape[2:]), pad_mode,
                                 tuple(pad) if pad_mode == "pad" else 0, tuple(stride), tuple(dilation), groups)
    out = wrap(fwd(x, weight))
    if needs_grad(x, weight):
        xs, ws = tuple(x.shape), tuple(weight.shape)

        def bw(g):
            gx = wrap(bpi(g, weight, xs)) if x.requires_grad else None
            gw = wrap(bpf(g, x, ws)) if weight.requires_grad else None
            return gx, gw
        record("ConvolutionBackward0", out, (x, weight), bw, saved=(x, weight))
    return out
