"""msnb implementation of ``torch.autocast`` / ``torch.amp.autocast``: one
autocast state, read by the ops that PyTorch's autocast lists name.

Design
------
PyTorch keeps one autocast state per device type and applies it in its
dispatcher.  msnb has one device (whatever MindSpore runs on), so it keeps
**one** thread-local stack of frames and every spelling -- ``torch.autocast``,
``torch.amp.autocast``, ``torch.cuda.amp.autocast``, ``device_type`` "cuda",
"cpu" or "npu" -- pushes onto the same stack.  ``torch.is_autocast_enabled()``
therefore gives the same answer for every device type.

Ops take part by calling :func:`autocast_inputs` on their tensor inputs (or
by being wrapped with :func:`autocast_op`, which also handles the output and
nesting, see below).  The top frame decides what happens:

* a ``torch.autocast`` frame (kind ``"autocast"``) applies PyTorch's CUDA
  op lists (:data:`LOWER_PRECISION_OPS`, :data:`FP32_OPS`,
  :data:`PROMOTE_OPS`): float32/float16/bfloat16 inputs of a lower-precision
  op are cast to the autocast dtype, those of an fp32-list op to float32;
  float64 inputs are never cast (as in PyTorch).  The CUDA lists are used for
  every ``device_type`` because Ascend is where msnb runs in production; so
  under ``autocast("cpu", dtype=torch.float16)`` ``softmax`` returns float32
  where PyTorch's CPU list would leave float16.
* frames pushed by the MindSpore AMP levels (:mod:`.policy`): kind ``"O1"``
  casts the inputs of MindSpore's O1 white-list ops to float16 and their
  output back to float32; kind ``"cell"`` (O2/O3) casts the float inputs of
  every hooked op to the dtype of the module being run.

Nesting: inside an op wrapped by :func:`autocast_op` the ops it calls are not
cast again -- PyTorch's autocast sits above the kernels a composite op
decomposes into, and ``F.linear`` in msnb is built from ``matmul`` and
``add``.

bfloat16 on CPU: MindSpore 2.10 has no CPU kernels for bfloat16 matmul (nor
for most bfloat16 arithmetic), so entering an enabled bfloat16 autocast while
MindSpore runs on CPU raises a ``RuntimeError`` that says so, instead of
failing later inside a kernel or silently computing in another dtype.  Note
that ``torch.autocast("cpu")`` defaults to bfloat16 in PyTorch, so CPU code
must say ``dtype=torch.float16`` to run on msnb's CPU backend.

``cache_enabled`` is accepted and has no effect: PyTorch's weight-cast cache
saves re-casting a parameter used several times in one region; msnb casts
each use, which gives the same values.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from typing import Any, Callable

from .. import _dtype as D

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "set_autocast_enabled", "set_autocast_dtype", "autocast_inputs", "autocast_op",
           "custom_fwd", "custom_bwd", "LOWER_PRECISION_OPS", "FP32_OPS", "PROMOTE_OPS", "O1_WHITE_LIST",
           "Frame", "push", "pop", "top", "current_frames"]

#: PyTorch's CUDA "ops that can autocast to float16" (``torch.amp`` docs).
LOWER_PRECISION_OPS = frozenset({
    "__matmul__", "addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "chain_matmul", "multi_dot",
    "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "GRUCell", "linear", "LSTMCell", "matmul", "mm", "mv", "prelu", "RNNCell",
    "scaled_dot_product_attention",
})

#: PyTorch's CUDA "ops that can autocast to float32".
FP32_OPS = frozenset({
    "__pow__", "__rdiv__", "__rpow__", "__rtruediv__", "acos", "asin", "binary_cross_entropy_with_logits",
    "cosh", "cosine_embedding_loss", "cdist", "cosine_similarity", "cross_entropy", "cumprod", "cumsum",
    "dist", "erfinv", "exp", "expm1", "group_norm", "hinge_embedding_loss", "kl_div", "l1_loss",
    "layer_norm", "log", "log_softmax", "log10", "log1p", "log2", "margin_ranking_loss", "mse_loss",
    "multilabel_margin_loss", "multi_margin_loss", "nll_loss", "norm", "normalize", "pdist",
    "poisson_nll_loss", "pow", "prod", "reciprocal", "rsqrt", "sinh", "smooth_l1_loss", "soft_margin_loss",
    "softmax", "softmin", "softplus", "sum", "renorm", "tan", "triplet_margin_loss",
})

#: PyTorch's CUDA "ops that promote to the widest input type".
PROMOTE_OPS = frozenset({"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "grid_sampler",
                         "index_put", "scatter_add", "tensordot"})

#: MindSpore's O1 white list (``mindspore.train.amp.AMP_WHITE_LIST``: Conv*, Dense, RNN cells, MatMul,
#: BatchMatMul, PReLU, ReLU, Ger) spelled as the torch ops that reach those kernels.
O1_WHITE_LIST = frozenset({
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "linear",
    "LSTMCell", "RNNCell", "GRUCell", "matmul", "__matmul__", "mm", "bmm", "mv", "addmm", "baddbmm",
    "prelu", "relu", "outer", "ger",
})

_DEVICE_TYPES = ("cuda", "cpu", "npu", "xpu", "hpu", "mtia", "maia")
_DEFAULT_DTYPE = {"cpu": "bfloat16"}  # every other device type: float16, as PyTorch's CUDA default


class Frame:
    """One entry of the autocast stack.

    ``kind`` is ``"autocast"`` (torch.autocast), ``"O1"`` or ``"cell"`` (AMP
    levels, see :mod:`.policy`); ``dtype`` the lower-precision dtype (or, for
    ``"cell"``, the dtype the current module computes in); ``enabled`` False
    for ``autocast(enabled=False)``.
    """

    __slots__ = ("kind", "enabled", "dtype", "device_type")

    def __init__(self, kind: str, enabled: bool, dtype, device_type: str = "cuda") -> None:
        self.kind, self.enabled, self.dtype, self.device_type = kind, enabled, dtype, device_type

    def __repr__(self) -> str:
        return f"Frame({self.kind!r}, enabled={self.enabled}, dtype={self.dtype})"


class _Local(threading.local):
    def __init__(self) -> None:
        self.stack: list[Frame] = []
        self.in_op = False
        # set_autocast_enabled / set_autocast_dtype outside any region
        self.base_enabled = False
        self.base_dtype: dict[str, Any] = {}


_local = _Local()


def push(frame: Frame) -> None:
    """Push a frame (used by :class:`autocast` and the AMP level policy)."""
    _local.stack.append(frame)


def pop(frame: Frame) -> None:
    """Pop ``frame``; frames above it (left by an exception) go too."""
    stack = _local.stack
    while stack:
        if stack.pop() is frame:
            return


def top() -> Frame | None:
    """The innermost frame, or None when no autocast or AMP level is active."""
    stack = _local.stack
    return stack[-1] if stack else None


def current_frames() -> tuple[Frame, ...]:
    """Every active frame, outermost first (for tests and the policy)."""
    return tuple(_local.stack)


# --- the public torch functions ---------------------------------------------------------------


def is_autocast_available(device_type: str) -> bool:
    """msnb implementation of ``torch.amp.is_autocast_available``."""
    return device_type in _DEVICE_TYPES


def _torch_autocast_frame() -> Frame | None:
    for frame in reversed(_local.stack):
        if frame.kind == "autocast":
            return frame
    return None


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """msnb implementation of ``torch.is_autocast_enabled``: one state for every device type."""
    frame = _torch_autocast_frame()
    return frame.enabled if frame is not None else _local.base_enabled


def get_autocast_dtype(device_type: str = "cuda"):
    """msnb implementation of ``torch.get_autocast_dtype`` (PyTorch's per-device defaults)."""
    frame = _torch_autocast_frame()
    if frame is not None:
        return frame.dtype
    if device_type in _local.base_dtype:
        return _local.base_dtype[device_type]
    return getattr(D, _DEFAULT_DTYPE.get(device_type, "float16"))


def set_autocast_enabled(device_type, enabled=None) -> None:
    """msnb implementation of ``torch.set_autocast_enabled`` (outside any autocast region)."""
    if enabled is None:  # the old one-argument spelling
        device_type, enabled = "cuda", device_type
    _local.base_enabled = bool(enabled)


def set_autocast_dtype(device_type: str, dtype) -> None:
    """msnb implementation of ``torch.set_autocast_dtype``."""
    _local.base_dtype[device_type] = dtype


def _bf16_unavailable() -> bool:
    from ..._ms import device_target

    return device_target() == "CPU"


class autocast:  # noqa: N801 - torch spells it in lower case
    """msnb implementation of ``torch.autocast`` / ``torch.amp.autocast``.

    Context manager and decorator.  ``device_type`` "cuda", "cpu" and "npu"
    all mean the device MindSpore runs on.  Unlike PyTorch on a machine
    without CUDA, ``autocast("cuda")`` is not disabled with a warning: the
    "cuda" device is MindSpore's device, so autocast applies.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else D.to_torch_dtype(dtype)
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        enabled = bool(enabled)
        if enabled and self.fast_dtype not in (D.bfloat16, D.float16):
            name = device_type.upper()
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=2)
            enabled = False
        self._enabled = enabled
        self._frames: list[Frame] = []

    def __enter__(self):
        if self._enabled and self.fast_dtype is D.bfloat16 and _bf16_unavailable():
            raise RuntimeError(
                "msnb: autocast to torch.bfloat16 needs bfloat16 kernels, and MindSpore has none for "
                "matmul on CPU. Use torch.autocast(device_type, dtype=torch.float16) on CPU (note that "
                "torch.autocast('cpu') defaults to bfloat16), or run on Ascend.")
        frame = Frame("autocast", self._enabled, self.fast_dtype, self.device)
        self._frames.append(frame)
        push(frame)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        pop(self._frames.pop())
        return False

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


# --- what the ops call -------------------------------------------------------------------------

_CASTABLE = None  # filled on first use: float16, bfloat16, float32 (never float64)


def _castable(x) -> bool:
    global _CASTABLE
    if _CASTABLE is None:
        _CASTABLE = (D.float16, D.bfloat16, D.float32)
    from .._tensor import Tensor

    return isinstance(x, Tensor) and x.dtype in _CASTABLE


def _target_dtype(frame: Frame, op_name: str, tensors) -> Any:
    """The dtype ``op_name``'s float inputs take under ``frame`` (None: leave them)."""
    kind = frame.kind
    if kind == "autocast":
        if not frame.enabled:
            return None
        if op_name in LOWER_PRECISION_OPS:
            return frame.dtype
        if op_name in FP32_OPS:
            return D.float32
        if op_name in PROMOTE_OPS:
            widest = frame.dtype
            for t in tensors:
                if _castable(t):
                    widest = D.promote_types(widest, t.dtype)
            return widest
        return None
    if kind == "O1":
        return frame.dtype if op_name in O1_WHITE_LIST else None
    if kind == "cell":
        return frame.dtype
    return None


def _cast_all(values, dtype):
    from .._core import cast

    return tuple(cast(v, dtype) if _castable(v) and v.dtype is not dtype else v for v in values)


def autocast_inputs(op_name: str, *tensors):
    """Return ``tensors`` cast as the active autocast state wants for ``op_name``.

    Always returns a tuple (``x, w = autocast_inputs("linear", x, w)``).
    Non-tensors, integer tensors and float64 tensors pass through; with no
    active state (the usual case) the inputs come back unchanged at the cost
    of one attribute read.  The cast is differentiable: gradients reach the
    original float32 tensors in float32.
    """
    stack = _local.stack
    if not stack or _local.in_op:
        return tensors
    dtype = _target_dtype(stack[-1], op_name, tensors)
    if dtype is None:
        return tensors
    return _cast_all(tensors, dtype)


def autocast_op(op_name: str) -> Callable[[Callable], Callable]:
    """Decorator form of :func:`autocast_inputs` for a whole op.

    Casts every float tensor argument, runs the op with autocast off for the
    ops it calls (PyTorch's autocast does not re-cast inside a composite op),
    and under the O1 level casts the result back to float32 as MindSpore's O1
    does.  Calls with ``out=`` or ``inplace=True`` run uncast (PyTorch's
    autocast has no out= variants either): casting would write into a copy.
    Arguments an op updates in place (batch norm's running stats) must not go
    through a cast: use :func:`autocast_inputs` on the others instead.
    """

    def decorate(fn: Callable) -> Callable:
        params = list(inspect.signature(fn).parameters)
        inplace_at = params.index("inplace") if "inplace" in params else None

        @functools.wraps(fn)
        def op(*args, **kwargs):
            stack = _local.stack
            if not stack or _local.in_op:
                return fn(*args, **kwargs)
            if kwargs.get("out") is not None or (inplace_at is not None and (
                    kwargs.get("inplace") or (len(args) > inplace_at and args[inplace_at]))):
                return fn(*args, **kwargs)  # writes into a caller's tensor: a cast copy would lose the write
            frame = stack[-1]
            dtype = _target_dtype(frame, op_name, tuple(args) + tuple(kwargs.values()))
            if dtype is None:
                return fn(*args, **kwargs)
            args = _cast_all(args, dtype)
            kwargs = dict(zip(kwargs, _cast_all(kwargs.values(), dtype)))
            _local.in_op = True
            try:
                out = fn(*args, **kwargs)
            finally:
                _local.in_op = False
            if frame.kind == "O1":
                out = _cast_outputs(out, D.float32)
            return out

        op.__msnb_autocast__ = op_name
        return op

    return decorate


def _cast_outputs(out, dtype):
    if isinstance(out, tuple):
        return tuple(_cast_outputs(o, dtype) for o in out)
    if isinstance(out, list):
        return [_cast_outputs(o, dtype) for o in out]
    return _cast_all((out,), dtype)[0]


# --- custom autograd Functions -----------------------------------------------------------------


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """msnb implementation of ``torch.amp.custom_fwd`` for ``autograd.Function.forward``."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        used = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if not used:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            args = (args[0],) + _cast_all(args[1:], cast_inputs)
            kwargs = dict(zip(kwargs, _cast_all(kwargs.values(), cast_inputs)))
            return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """msnb implementation of ``torch.amp.custom_bwd``: backward runs with forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
