"""Quantized tensors: ``torch.qint8`` / ``quint8`` / ``qint32``, ``torch.quantize_per_tensor``
and the tensor they return (``int_repr``, ``dequantize``, ``q_scale``, ``q_zero_point``).

MindSpore has no quantized tensor type, so a quantized tensor is a small
:class:`QTensor` holding its integers (an msnb int8 / uint8 / int32 tensor),
its scale and its zero point.  Quantizing follows PyTorch's x86 (FBGEMM)
CPU arithmetic exactly: ``q = clamp(nearbyint(fma(x, 1/scale, zero_point)))``
with ``1/scale`` in float32 and one rounding of ``x * (1/scale) + zero_point``
to float32 (emulated on the host in float64, where the float32 product is
exact); ``dequantize`` is ``(q - zero_point) * scale`` in float32.
"""

from __future__ import annotations

import numpy as np

from . import _dtype as D

__all__ = ["qint8", "quint8", "qint32", "qscheme", "per_tensor_affine", "QTensor", "quantize_per_tensor",
           "quantize_array", "is_qdtype"]


class _QDtype(D.dtype):
    """A quantized dtype (``torch.qint8`` ...): no MindSpore type stands behind it."""

    __slots__ = ("_name", "_int", "_lo", "_hi", "itemsize")
    is_floating_point = False
    is_complex = False

    def __init__(self, name, int_dtype, lo, hi, itemsize):
        self._name, self._int, self._lo, self._hi, self.itemsize = name, int_dtype, lo, hi, itemsize

    @property
    def is_signed(self):
        raise RuntimeError("isSignedType not supported for quantized types")

    def __repr__(self):
        return f"torch.{self._name}"

    __str__ = __repr__

    def __reduce__(self):
        return (getattr, (_module(), self._name))


def _module():
    import importlib
    return importlib.import_module("msnb.adapter.torch._quantized")


qint8 = _QDtype("qint8", D.int8, -128, 127, 1)
quint8 = _QDtype("quint8", D.uint8, 0, 255, 1)
qint32 = _QDtype("qint32", D.int32, -2 ** 31, 2 ** 31 - 1, 4)


def is_qdtype(d) -> bool:
    return isinstance(d, _QDtype)


class qscheme:  # noqa: N801 - torch spells it in lower case
    """``torch.qscheme``: how a quantized tensor maps integers to values."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    __str__ = __repr__


per_tensor_affine = qscheme("per_tensor_affine")


def quantize_array(x: np.ndarray, scale: float, zero_point: int, lo: int, hi: int) -> np.ndarray:
    """PyTorch's FBGEMM quantization of float32 ``x`` (see the module docstring), as int64."""
    inv = np.float32(1.0) / np.float32(scale)
    v = (np.asarray(x, np.float32).astype(np.float64) * np.float64(inv) + zero_point).astype(np.float32)
    return np.clip(np.rint(v), lo, hi).astype(np.int64)


class QTensor:
    """A per-tensor affine quantized tensor (what ``torch.quantize_per_tensor`` returns)."""

    is_quantized = True
    requires_grad = False

    def __init__(self, ints, scale, zero_point, dtype):
        self._ints, self._scale, self._zp, self.dtype = ints, float(scale), int(zero_point), dtype

    # --- the quantized tensor's own API -----------------------------------------------------
    def int_repr(self):
        return self._ints.clone()

    def dequantize(self):
        from ._core import wrap
        import mindspore as ms
        q = self._ints.numpy().astype(np.int64) - self._zp
        return wrap(ms.Tensor((q.astype(np.float32) * np.float32(self._scale)).astype(np.float32)))

    def q_scale(self):
        return self._scale

    def q_zero_point(self):
        return self._zp

    def qscheme(self):
        return per_tensor_affine

    # --- what it shares with every tensor ------------------------------------------------------
    @property
    def shape(self):
        return self._ints.shape

    def size(self, dim=None):
        return self._ints.size() if dim is None else self._ints.size(dim)

    def dim(self):
        return self._ints.dim()

    ndim = property(dim)

    def numel(self):
        return self._ints.numel()

    @property
    def device(self):
        return self._ints.device

    def __len__(self):
        return len(self._ints)

    def __repr__(self):
        """PyTorch's layout: the dequantized values, then size / dtype / scheme / scale / zero point,
        wrapped at 80 columns as ``torch._tensor_str._add_suffixes`` wraps them."""
        body = repr(self.dequantize())  # "tensor([...])"
        out = body[:-1]
        last = len(out) - out.rfind("\n") + 1  # PyTorch's count (one more than the line's length)
        for suffix in (f"size={tuple(self.shape)}", f"dtype={self.dtype}", f"quantization_scheme={per_tensor_affine}",
                       f"scale={self._scale}", f"zero_point={self._zp}"):
            if last + len(suffix) + 2 > 80:
                out += ",\n" + " " * 7 + suffix
                last = 7 + len(suffix)
            else:
                out += ", " + suffix
                last += len(suffix) + 2
        return out + ")"

    def __getattr__(self, name):
        from ._missing import NotSupportedError, not_supported_message
        from ._api_names import TENSOR_METHODS
        if name in TENSOR_METHODS:
            raise NotSupportedError(not_supported_message(f"torch.Tensor.{name} of a quantized tensor"))
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")


def quantize_per_tensor(input, scale, zero_point, dtype):
    """msnb implementation of ``torch.quantize_per_tensor`` (per-tensor affine, PyTorch's x86 CPU rounding)."""
    from ._core import wrap
    import mindspore as ms
    if isinstance(input, (list, tuple)):
        return [quantize_per_tensor(t, s, z, dtype) for t, s, z in zip(input, scale, zero_point)]
    if not is_qdtype(dtype):
        raise RuntimeError(f"ScalarType {_scalar_name(dtype)} is not supported in new_qtensor.")
    if input.dtype is not D.float32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {_scalar_name(input.dtype)}")
    scale = float(scale.item() if hasattr(scale, "item") else scale)
    zero_point = int(zero_point.item() if hasattr(zero_point, "item") else zero_point)
    if zero_point > dtype._hi:
        raise RuntimeError(f"quantize_tensor_per_tensor_affine zero_point {zero_point} is above upper bound.")
    if zero_point < dtype._lo:
        raise RuntimeError(f"quantize_tensor_per_tensor_affine zero_point {zero_point} is below lower bound.")
    q = quantize_array(input.detach().numpy(), scale, zero_point, dtype._lo, dtype._hi)
    ints = wrap(ms.Tensor(q.astype(dtype._int.numpy)))
    return QTensor(ints, scale, zero_point, dtype)


def _scalar_name(d):
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    s = str(d).replace("torch.", "")
    return names.get(s, s)
