"""Layers: linear, convolution, pooling, normalisation, dropout, embedding,
reshaping and activations -- each a thin Module over ``nn.functional``."""

from __future__ import annotations

import math

from ... import _dtype as D
from ..._ops.creation import empty, ones, zeros, tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "Conv1d", "Conv2d", "MaxPool1d", "MaxPool2d", "AvgPool2d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool1d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm",
           "Dropout", "Dropout1d", "Dropout2d", "Embedding", "Flatten", "Unflatten", "PixelShuffle", "ReLU",
           "ReLU6", "LeakyReLU", "ELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh", "Softplus", "Softmax",
           "LogSoftmax", "Hardtanh", "Hardsigmoid", "Hardswish", "GLU", "Softmin", "LogSigmoid"]


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """msnb implementation of ``torch.nn.Linear`` (PyTorch's default initialisation)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        d = dtype or D.get_default_dtype()
        self.weight = Parameter(empty(out_features, in_features, dtype=d))
        self.bias = Parameter(empty(out_features, dtype=d)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(empty(out_features, in1_features, in2_features))
        self.bias = Parameter(empty(out_features)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        bound = 1 / math.sqrt(in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


def _t(x, n):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


class _ConvNd(Module):
    _n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedError(f"torch.nn.Conv{self._n}d(padding_mode='{padding_mode}') is not supported by msnb yet")
        n = self._n
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _t(kernel_size, n), _t(stride, n)
        self.padding = padding if isinstance(padding, str) else _t(padding, n)
        self.dilation, self.groups, self.padding_mode = _t(dilation, n), groups, padding_mode
        self.output_padding = (0,) * n
        self.transposed = False
        self.weight = Parameter(empty(out_channels, in_channels // groups, *self.kernel_size))
        self.bias = Parameter(empty(out_channels)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self._n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv2d(_ConvNd):
    """msnb implementation of ``torch.nn.Conv2d``."""

    _n = 2

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """msnb implementation of ``torch.nn.Conv1d``."""

    _n = 1

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.return_indices, self.ceil_mode = padding, dilation, return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(MaxPool2d):
    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(ones(num_features))
            self.bias = Parameter(zeros(num_features))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features))
            self.register_buffer("running_var", ones(num_features))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=D.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, input):
        self._check_input_dim(input)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or self.running_mean is None
        return F.batch_norm(input, self.running_mean if not self.training or self.track_running_stats else None,
                            self.running_var if not self.training or self.track_running_stats else None,
                            self.weight, self.bias, use_batch, momentum, self.eps)

    def _check_input_dim(self, input):
        pass

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(*self.normalized_shape))
            self.bias = Parameter(zeros(*self.normalized_shape)) if bias else None
            if not bias:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(ones(num_channels))
            self.bias = Parameter(zeros(num_channels))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


Dropout1d = Dropout2d = Dropout


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm = max_norm
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim), requires_grad=not _freeze)
            init.normal_(self.weight)
            if padding_idx is not None:
                from ...autograd.grad_mode import no_grad
                with no_grad():
                    self.weight[padding_idx].fill_(0)
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, **kw):
        return cls(embeddings.shape[0], embeddings.shape[1], padding_idx, _weight=embeddings, _freeze=freeze)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={tuple(self.unflattened_size)}"


class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


def _act(name, fn, params=(), repr_fmt=None):
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        vals = dict(zip([p for p, _ in params], args))
        for p, default in params:
            setattr(self, p, kwargs.get(p, vals.get(p, default)))

    def forward(self, input):
        return fn(input, *[getattr(self, p) for p, _d in params if p != "inplace"])

    def extra_repr(self):
        shown = [(p, getattr(self, p)) for p, _ in params if not (p == "inplace" and not getattr(self, p))]
        if repr_fmt:
            return repr_fmt(self)
        return ", ".join(f"{p}={v}" for p, v in shown)
    return type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                  "__doc__": f"msnb implementation of ``torch.nn.{name}``."})


ReLU = _act("ReLU", lambda x: F.relu(x), [("inplace", False)])
ReLU6 = _act("ReLU6", lambda x: F.relu6(x), [("inplace", False)])
LeakyReLU = _act("LeakyReLU", F.leaky_relu, [("negative_slope", 0.01), ("inplace", False)])
ELU = _act("ELU", F.elu, [("alpha", 1.0), ("inplace", False)])
GELU = _act("GELU", lambda x, approximate: F.gelu(x, approximate), [("approximate", "none")],
            repr_fmt=lambda self: f"approximate='{self.approximate}'")
SiLU = _act("SiLU", lambda x: F.silu(x), [("inplace", False)])
Mish = _act("Mish", lambda x: F.mish(x), [("inplace", False)])
Sigmoid = _act("Sigmoid", F.sigmoid)
Tanh = _act("Tanh", F.tanh)
LogSigmoid = _act("LogSigmoid", F.logsigmoid)
Hardsigmoid = _act("Hardsigmoid", lambda x: F.hardsigmoid(x), [("inplace", False)])
Hardswish = _act("Hardswish", lambda x: F.hardswish(x), [("inplace", False)])
Softplus = _act("Softplus", F.softplus, [("beta", 1.0), ("threshold", 20.0)])
Hardtanh = _act("Hardtanh", F.hardtanh, [("min_val", -1.0), ("max_val", 1.0), ("inplace", False)])
Softmax = _act("Softmax", lambda x, dim: F.softmax(x, dim), [("dim", None)])
Softmin = _act("Softmin", lambda x, dim: F.softmin(x, dim), [("dim", None)])
LogSoftmax = _act("LogSoftmax", lambda x, dim: F.log_softmax(x, dim), [("dim", None)])
GLU = _act("GLU", lambda x, dim: F.glu(x, dim), [("dim", -1)])
