"""Activation layers and ``MultiheadAttention`` (as in PyTorch's
``torch/nn/modules/activation.py``): thin Modules over ``nn.functional``."""

from __future__ import annotations

import warnings

from ... import _dtype as D
from ..._ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["Threshold", "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid",
           "Tanh", "Softplus", "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "Softmax", "LogSoftmax",
           "Softmin", "Hardtanh", "Hardsigmoid", "Hardswish", "GLU", "LogSigmoid", "PReLU", "MultiheadAttention"]


def _inplace_str(inplace, lead=""):
    return f"{lead}inplace=True" if inplace else ""


class Threshold(Module):
    """msnb implementation of ``torch.nn.Threshold``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_str(self.inplace, ', ')}"


class _InplaceAct(Module):
    """An activation whose only option is ``inplace``."""

    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace)


class ReLU(_InplaceAct):
    """msnb implementation of ``torch.nn.ReLU``."""

    _fn = staticmethod(F.relu)


class SELU(_InplaceAct):
    """msnb implementation of ``torch.nn.SELU``."""

    _fn = staticmethod(F.selu)


class SiLU(_InplaceAct):
    """msnb implementation of ``torch.nn.SiLU``."""

    _fn = staticmethod(F.silu)


class Mish(_InplaceAct):
    """msnb implementation of ``torch.nn.Mish``."""

    _fn = staticmethod(F.mish)


class Hardsigmoid(_InplaceAct):
    """msnb implementation of ``torch.nn.Hardsigmoid``."""

    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self):
        return ""


class Hardswish(_InplaceAct):
    """msnb implementation of ``torch.nn.Hardswish``."""

    _fn = staticmethod(F.hardswish)

    def extra_repr(self):
        return ""


class Hardtanh(Module):
    """msnb implementation of ``torch.nn.Hardtanh``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        # PyTorch's deprecated spellings: taken, with its warning
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", stacklevel=2)
            max_val = max_value
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_str(self.inplace, ', ')}"


class ReLU6(Hardtanh):
    """msnb implementation of ``torch.nn.ReLU6``."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_str(self.inplace)


class LeakyReLU(Module):
    """msnb implementation of ``torch.nn.LeakyReLU``."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_str(self.inplace, ', ')}"


class ELU(Module):
    """msnb implementation of ``torch.nn.ELU``."""

    _fn = staticmethod(F.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_str(self.inplace, ', ')}"


class CELU(ELU):
    """msnb implementation of ``torch.nn.CELU``."""

    _fn = staticmethod(F.celu)


class GELU(Module):
    """msnb implementation of ``torch.nn.GELU``."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _Plain(Module):
    """An activation with no options."""

    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class Sigmoid(_Plain):
    """msnb implementation of ``torch.nn.Sigmoid``."""

    _fn = staticmethod(F.sigmoid)


class Tanh(_Plain):
    """msnb implementation of ``torch.nn.Tanh``."""

    _fn = staticmethod(F.tanh)


class LogSigmoid(_Plain):
    """msnb implementation of ``torch.nn.LogSigmoid``."""

    _fn = staticmethod(F.logsigmoid)


class Softsign(_Plain):
    """msnb implementation of ``torch.nn.Softsign``."""

    _fn = staticmethod(F.softsign)


class Tanhshrink(_Plain):
    """msnb implementation of ``torch.nn.Tanhshrink``."""

    _fn = staticmethod(F.tanhshrink)


class Hardshrink(Module):
    """msnb implementation of ``torch.nn.Hardshrink``."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """msnb implementation of ``torch.nn.Softshrink``."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class Softplus(Module):
    """msnb implementation of ``torch.nn.Softplus``."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class _DimAct(Module):
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._fn(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_DimAct):
    """msnb implementation of ``torch.nn.Softmax``."""

    _fn = staticmethod(F.softmax)


class Softmin(_DimAct):
    """msnb implementation of ``torch.nn.Softmin``."""

    _fn = staticmethod(F.softmin)


class LogSoftmax(_DimAct):
    """msnb implementation of ``torch.nn.LogSoftmax``."""

    _fn = staticmethod(F.log_softmax)


class GLU(_DimAct):
    """msnb implementation of ``torch.nn.GLU``."""

    _fn = staticmethod(F.glu)

    def __init__(self, dim=-1):
        super().__init__(dim)


class PReLU(Module):
    """msnb implementation of ``torch.nn.PReLU`` (``weight`` initialised to ``init``)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, dtype=dtype or D.get_default_dtype()))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    """msnb implementation of ``torch.nn.MultiheadAttention``: PyTorch's parameter names
    (``in_proj_weight``/``in_proj_bias``, or ``q/k/v_proj_weight`` when ``kdim``/``vdim``
    differ; ``out_proj``; ``bias_k``/``bias_v``) and initialisation."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        d = dtype or D.get_default_dtype()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty(embed_dim, embed_dim, dtype=d))
            self.k_proj_weight = Parameter(empty(embed_dim, self.kdim, dtype=d))
            self.v_proj_weight = Parameter(empty(embed_dim, self.vdim, dtype=d))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, dtype=d))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=d))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=d)
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, embed_dim, dtype=d))
            self.bias_v = Parameter(empty(1, 1, embed_dim, dtype=d))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batched = query.ndim == 3
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


class Softmax2d(Module):
    """msnb implementation of ``torch.nn.Softmax2d``: softmax over the channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


__all__ += ["Softmax2d"]


class RReLU(Module):
    """msnb implementation of ``torch.nn.RReLU`` (random negative slopes in training)."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_str(self.inplace, ', ')}"


__all__ += ["RReLU"]
