"""msnb implementation of ``torch.ao.quantization.quantize_dynamic`` for ``nn.Linear``.

PyTorch's dynamic quantization on the x86 (FBGEMM) CPU engine stores each
Linear's weight as qint8, per tensor and symmetric (``scale = max|w| / 127.5``
in float32, zero point 0), and at each call quantizes the input to quint8
with a reduced range (0..127, scale and zero point chosen from the input's
min/max the way FBGEMM's ``ChooseQuantizationParams`` does), multiplies the
integers with int32 accumulation, and maps back with one fused multiply-add
``acc * (x_scale * w_scale) + bias`` in float32.  msnb emulates exactly that
arithmetic on the host (numpy integers; float64 where one float32 rounding of
a fused operation is needed), so outputs equal PyTorch's bit for bit.
Other modules PyTorch would quantize (LSTM, GRU, RNN cells) and other dtypes
raise msnb's unsupported error by name.
"""

from __future__ import annotations

import copy

import numpy as np

from ..._missing import NotSupportedError, not_supported_message
from ..._quantized import QTensor, qint8, quantize_array, quantize_per_tensor, quint8, per_tensor_affine

__all__ = ["quantize_dynamic"]


def _choose_qparams(lo: np.float32, hi: np.float32, qmin: int, qmax: int):
    """FBGEMM's ChooseQuantizationParams (preserve_sparsity off): (scale, zero_point)."""
    lo, hi = min(np.float32(lo), np.float32(0)), max(np.float32(hi), np.float32(0))
    scale = (np.float64(hi) - np.float64(lo)) / (qmax - qmin)
    if np.float32(scale) == 0 or np.isinf(np.float32(1) / np.float32(scale)):
        scale = 0.1
    from_min, from_max = qmin - lo / scale, qmax - hi / scale
    err_min, err_max = abs(qmin) + abs(lo / scale), abs(qmax) + abs(hi / scale)
    z = from_min if err_min < err_max else from_max
    zp = qmin if z < qmin else qmax if z > qmax else int(np.rint(z))
    return float(np.float32(scale)), zp


def _weight_qparams(w: np.ndarray):
    """The default dynamic weight observer: symmetric per-tensor qint8 in float32."""
    amax = max(abs(np.float32(w.min())), abs(np.float32(w.max()))) if w.size else np.float32(0)
    scale = max(np.float32(amax) / np.float32(127.5), np.finfo(np.float32).eps)
    return float(np.float32(scale)), 0


def _module_base():
    from ...nn import Module
    return Module


class DynamicQuantizedLinear(_module_base()):
    """``torch.ao.nn.quantized.dynamic.Linear`` (printed as PyTorch prints it)."""

    def __init__(self, in_features, out_features, weight: QTensor, bias, dtype=qint8):
        super().__init__()
        self.in_features, self.out_features, self._dtype = in_features, out_features, dtype
        self._weight, self._bias = weight, bias
        w = weight.int_repr().numpy().astype(np.int64)
        self._w_int, self._col_sums = w, w.sum(axis=1)

    @classmethod
    def from_float(cls, mod):
        w = mod.weight.detach().numpy().astype(np.float32)
        scale, zp = _weight_qparams(w)
        from ..._core import wrap
        import mindspore as ms
        wq = quantize_per_tensor(wrap(ms.Tensor(w)), scale, zp, qint8)
        bias = None if mod.bias is None else mod.bias.detach().clone()
        return cls(mod.in_features, mod.out_features, wq, bias)

    def weight(self):
        return self._weight

    def bias(self):
        return self._bias

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._dtype}, "
                f"qscheme={per_tensor_affine}")

    def forward(self, x):
        from ..._core import wrap
        import mindspore as ms
        if x.dim() < 2:
            raise RuntimeError("The dimension of input tensor should be larger than or equal to 2")
        xs = x.detach().numpy().astype(np.float32)
        flat = xs.reshape(-1, xs.shape[-1])
        scale, zp = _choose_qparams(flat.min() if flat.size else 0, flat.max() if flat.size else 0, 0, 127)
        xq = quantize_array(flat, scale, zp, quint8._lo, quint8._hi)
        acc = xq @ self._w_int.T - zp * self._col_sums[None, :]
        mult = np.float32(scale) * np.float32(self._weight.q_scale())
        y = acc.astype(np.float32).astype(np.float64) * np.float64(mult)
        if self._bias is not None:
            y = y + self._bias.detach().numpy().astype(np.float64)
        y = y.astype(np.float32).reshape(*xs.shape[:-1], self.out_features)
        return wrap(ms.Tensor(y))


def _spec_types(qconfig_spec):
    from ... import nn
    if qconfig_spec is None:
        return {nn.Linear, nn.LSTM, nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell}
    if isinstance(qconfig_spec, dict):
        return {k for k in qconfig_spec if isinstance(k, type)}
    return {k for k in qconfig_spec if isinstance(k, type)}


def _swap(module, types):
    from ... import nn
    for name, child in list(module._modules.items()):
        if child is None:
            continue
        kind = next((t for t in types if type(child) is t), None)
        if kind is nn.Linear:
            module._modules[name] = DynamicQuantizedLinear.from_float(child)
        elif kind is not None:
            raise NotSupportedError(not_supported_message(
                f"torch.ao.quantization.quantize_dynamic of {type(child).__name__}"))
        else:
            _swap(child, types)


def quantize_dynamic(model, qconfig_spec=None, dtype=qint8, mapping=None, inplace=False):
    """msnb implementation of ``torch.ao.quantization.quantize_dynamic``: ``nn.Linear`` children become
    qint8 dynamically quantized Linears computing PyTorch's x86 CPU numbers (see the module docstring)."""
    if dtype is not qint8:
        raise NotSupportedError(not_supported_message(f"torch.ao.quantization.quantize_dynamic(dtype={dtype})"))
    if mapping is not None:
        raise NotSupportedError(not_supported_message("torch.ao.quantization.quantize_dynamic(mapping=...)"))
    if isinstance(qconfig_spec, dict) and any(not isinstance(k, type) for k in qconfig_spec):
        raise NotSupportedError(not_supported_message("torch.ao.quantization.quantize_dynamic with module names"))
    if not inplace:
        model = copy.deepcopy(model)
    _swap(model, _spec_types(qconfig_spec))
    return model


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.ao.quantization")
