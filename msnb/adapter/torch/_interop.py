"""Bridges to MindSpore and small top-level torch helpers."""

from __future__ import annotations

from .._ms import TensorPy, ms
from . import _core
from ._ops import pointwise as P

__all__ = ["cast_to_adapter_tensor", "cast_to_ms_tensor", "is_tensor", "is_storage", "numel", "typename",
           "compile", "get_num_threads",
           "set_num_threads", "is_nonzero", "clamp_min", "clamp_max", "softmax", "log_softmax", "relu_",
           "sigmoid_", "tanh_", "set_float32_matmul_precision", "get_float32_matmul_precision"]


def cast_to_adapter_tensor(x):
    """MSAdapter's name: turn MindSpore tensors (also inside tuples/lists/dicts) into adapter tensors.

    A new adapter tensor is returned; the MindSpore tensor itself is left as it was."""
    from ._tensor import Tensor
    if isinstance(x, Tensor):
        return x
    if isinstance(x, TensorPy):
        return _core.wrap(_core.K.identity(x))
    if isinstance(x, (list, tuple)):
        return type(x)(cast_to_adapter_tensor(v) for v in x)
    if isinstance(x, dict):
        return {k: cast_to_adapter_tensor(v) for k, v in x.items()}
    return x


def cast_to_ms_tensor(x):
    """MSAdapter's name: a plain ``mindspore.Tensor`` with the same values."""
    if isinstance(x, TensorPy):
        out = _core.K.identity(x)
        out.__class__ = ms.Tensor
        return out
    if isinstance(x, (list, tuple)):
        return type(x)(cast_to_ms_tensor(v) for v in x)
    return x


def is_tensor(obj):
    from ._sparse_coo import SparseCooTensor
    from ._tensor import Tensor
    return isinstance(obj, (Tensor, SparseCooTensor))


def is_storage(obj):
    return False


def is_nonzero(input):
    return bool(input)


def numel(input):
    return input.numel()


def typename(obj):
    return obj.type() if is_tensor(obj) else type(obj).__name__


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None,  # noqa: A001
            name=None, disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """``torch.compile``: a module runs as compiled MindSpore graphs (msnb graph mode); see ``_compiled``.
    Only ``model`` and ``disable`` change what msnb does; the other options
    (backend, mode, dynamic shapes, recompile limits) are PyTorch compiler
    settings with no MindSpore counterpart, taken and ignored."""
    from ._compiled import compile as _compile
    return _compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                    disable=disable)


def get_num_threads():
    import os
    return os.cpu_count() or 1


def set_num_threads(n):
    pass


_matmul_precision = "highest"


def set_float32_matmul_precision(precision):
    """msnb implementation of ``torch.set_float32_matmul_precision``: the
    setting is remembered (MindSpore picks its own matmul precision); an
    unknown value warns and is ignored, as in PyTorch."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        import warnings
        warnings.warn(f"Invalid precision {precision}", UserWarning, stacklevel=2)
        return
    _matmul_precision = precision


def get_float32_matmul_precision():
    return _matmul_precision


def clamp_min(input, min):  # noqa: A002
    return P.clamp(input, min=min)


def clamp_max(input, max):  # noqa: A002
    return P.clamp(input, max=max)


def softmax(input, dim, dtype=None):
    from .nn import functional as F
    return F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    from .nn import functional as F
    return F.log_softmax(input, dim, dtype=dtype)


def relu_(input):
    return input.relu_()


def sigmoid_(input):
    return input.sigmoid_()


def tanh_(input):
    return input.tanh_()
