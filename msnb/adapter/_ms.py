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

__all__ = ["ms", "TensorPy", "set_data", "device_target", "MS_VERSION"]

TensorPy = _TensorPy
MS_VERSION = ms.__version__

_update = _TensorPy._update_data


def set_data(dst, src) -> None:
    """Make ``dst`` hold ``src``'s data (shape and dtype included), keeping
    ``dst``'s Python identity.  MindSpore's public ``assign_value`` refuses
    tensors that were inputs of a differentiated function (``ops.vjp``), and
    costs ~100x more; ``_update_data`` swaps the data pointer in ~0.3 us."""
    _update(dst, src)


def device_target() -> str:
    """``"CPU"``, ``"Ascend"`` or ``"GPU"``: where MindSpore runs kernels now."""
    return ms.get_context("device_target")
