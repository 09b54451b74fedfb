"""The one module that touches MindSpore internals.

Everything else in the adapter uses public MindSpore API.  What lives here
(and why) is kept small so a MindSpore upgrade has one place to check:

* re-classing a fresh MindSpore op output as an adapter tensor without a copy;
* replacing a tensor's data in place (``assign_value_cpp``), the primitive
  behind every PyTorch in-place op and alias update;
* reading the active device target.

Pinned to MindSpore 2.10 (see ``pyproject.toml``).
"""

from __future__ import annotations

import os

os.environ.setdefault("GLOG_v", "3")

import mindspore as ms  # noqa: E402
from mindspore._c_expression import TensorPy as _TensorPy  # noqa: E402

__all__ = ["ms", "TensorPy", "set_data", "device_target", "MS_VERSION", "conv2d_prims"]

TensorPy = _TensorPy
MS_VERSION = ms.__version__

_update = _TensorPy._update_data


_Parameter = ms.Parameter
_assign = ms.ops.assign


def set_data(dst, src) -> None:
    """Make ``dst`` hold ``src``'s data (shape and dtype included), keeping
    ``dst``'s Python identity.

    A plain tensor gets ``src``'s data pointer (``_update_data``, ~0.3 us;
    MindSpore's public ``assign_value`` refuses tensors that were inputs of a
    differentiated function and costs ~100x more).  A Parameter is written in
    place with ``ops.assign`` instead, because MindSpore graphs that hold it
    (its optimizers, ``ms.jit`` functions) keep pointing at its memory."""
    if isinstance(dst, _Parameter) and dst.shape == src.shape and dst.dtype == src.dtype:
        _assign(dst, src)
    else:
        _update(dst, src)


def device_target() -> str:
    """``"CPU"``, ``"Ascend"`` or ``"GPU"``: where MindSpore runs kernels now."""
    return ms.get_context("device_target")


# --- gradient primitives MindSpore keeps private ---------------------------------------
# msnb's conv/pool backward calls the same kernels MindSpore's own autodiff uses,
# computing only the gradients that are needed (an input image needs none).
import functools  # noqa: E402

from mindspore.ops import operations as _P  # noqa: E402
from mindspore.ops.operations import _grad_ops as _G  # noqa: E402


@functools.lru_cache(maxsize=256)
def conv2d_prims(out_channel, kernel_size, pad_mode, pad, stride, dilation, groups):
    """``(forward, grad_input, grad_filter)`` primitives for one conv configuration."""
    fwd = _P.Conv2D(out_channel, kernel_size, mode=1, pad_mode=pad_mode, pad=pad, stride=stride,
                    dilation=dilation, group=groups)
    pad_list = tuple(pad) if pad_mode == "pad" else (0, 0, 0, 0)
    bpi = _P.Conv2DBackpropInput(out_channel, kernel_size, pad_mode=pad_mode, pad=pad, pad_list=pad_list,
                                 stride=stride, dilation=dilation, group=groups)
    bpf = _G.Conv2DBackpropFilter(out_channel, kernel_size, pad_mode=pad_mode, pad=pad, pad_list=pad_list,
                                  stride=stride, dilation=(1, 1) + tuple(dilation), group=groups)
    return fwd, bpi, bpf
