"""Lazy modules (PyTorch's ``torch/nn/modules/lazy.py`` and the ``Lazy*``
classes): the input size is inferred at the first call.

A lazy module holds :class:`~msnb.adapter.torch.nn.parameter.UninitializedParameter`
placeholders; its first call reads the input's feature dimension, materializes
the placeholders in place (the same objects become parameters of the right
shape, so an optimizer built before the first call holds them), runs
``reset_parameters`` and turns the module into its ordinary class
(``LazyLinear`` becomes ``Linear``), as PyTorch does.
"""

from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import Module

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d"]


class LazyModuleMixin:
    """msnb implementation of ``torch.nn.modules.lazy.LazyModuleMixin``."""

    cls_to_become = None

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(p) for p in list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():
            from ...autograd.grad_mode import no_grad
            with no_grad():
                self.initialize_parameters(*args, **kwargs)
            if self.has_uninitialized_params():
                raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        if self.cls_to_become is not None:  # also after a checkpoint filled the placeholders
            self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)

    def _lazy_materialize(self, name, shape):
        """``load_state_dict`` met placeholder ``name``: give it the checkpoint's ``shape``
        (PyTorch's lazy load hook); values are copied in afterwards, nothing is re-initialised."""
        _materialize(self, name, shape)
        self._infer_sizes(name, shape)

    def _infer_sizes(self, name, shape):
        """The input size a checkpoint's tensor ``name`` of ``shape`` implies (PyTorch: only
        LazyLinear's ``in_features``; convolutions and norms keep 0 until their first call)."""

    def _check_initialized(self, what):
        if self.has_uninitialized_params():
            raise RuntimeError(f"{what} of the lazy module {type(self).__name__} before its first call: "
                               "run a forward pass (a dry run) first")


def _placeholders(module, names, dtype):
    for name in names:
        if getattr(module, name, None) is not None:
            setattr(module, name, UninitializedParameter(dtype=dtype))


def _materialize(module, name, shape):
    """Materialize the placeholder ``name`` (if it is one) in place as a Parameter of ``shape``."""
    p = getattr(module, name, None)
    if isinstance(p, UninitializedParameter):
        p.materialize(shape)


class LazyLinear(LazyModuleMixin, Linear):
    """msnb implementation of ``torch.nn.LazyLinear``: ``in_features`` is inferred from ``input.shape[-1]``."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Linear.__init__(self, 0, out_features, bias, device, dtype)
        _placeholders(self, ("weight", "bias"), dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def _infer_sizes(self, name, shape):
        if name == "weight" and len(shape) == 2:
            self.in_features = int(shape[1])

    def initialize_parameters(self, input, *args, **kwargs):
        self.in_features = int(input.shape[-1])
        _materialize(self, "weight", (self.out_features, self.in_features))
        _materialize(self, "bias", (self.out_features,))
        self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """``in_channels`` is inferred from the input (dim 0 unbatched, else dim 1)."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device,
                        dtype)

    def _lazy_init(self, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device,
                   dtype, **extra):
        self.cls_to_become.__init__(self, 0 if groups == 1 else groups, out_channels, kernel_size, stride=stride,
                                    padding=padding, dilation=dilation, groups=groups, bias=bias,
                                    padding_mode=padding_mode, device=device, dtype=dtype, **extra)
        self.in_channels = 0
        _placeholders(self, ("weight", "bias"), dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        n = self._n
        batched = input.dim() == n + 2
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {list(input.shape)}")
        self.in_channels = int(input.shape[1 if batched else 0])
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self._transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        _materialize(self, "weight", shape)
        _materialize(self, "bias", (self.out_channels,))
        self.reset_parameters()


class LazyConv1d(_LazyConvMixin, Conv1d):
    """msnb implementation of ``torch.nn.LazyConv1d``."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvMixin, Conv2d):
    """msnb implementation of ``torch.nn.LazyConv2d``."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvMixin, Conv3d):
    """msnb implementation of ``torch.nn.LazyConv3d``."""

    cls_to_become = Conv3d


class _LazyConvTransposeMixin(_LazyConvMixin):
    """PyTorch's argument order for transposed convolutions."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device,
                        dtype, output_padding=output_padding)


class LazyConvTranspose1d(_LazyConvTransposeMixin, ConvTranspose1d):
    """msnb implementation of ``torch.nn.LazyConvTranspose1d``."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeMixin, ConvTranspose2d):
    """msnb implementation of ``torch.nn.LazyConvTranspose2d``."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeMixin, ConvTranspose3d):
    """msnb implementation of ``torch.nn.LazyConvTranspose3d``."""

    cls_to_become = ConvTranspose3d


class _LazyNormBase(LazyModuleMixin):
    """``num_features`` is inferred from the input's dim 1; the running statistics are
    ``UninitializedBuffer`` placeholders until then, as in PyTorch."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 bias=True):
        self.cls_to_become.__init__(self, 0, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        _placeholders(self, ("weight", "bias"), dtype)
        for name in ("running_mean", "running_var"):
            if self._buffers.get(name) is not None:
                self._buffers[name] = UninitializedBuffer(dtype=dtype)

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(getattr(self, n, None)) for n in ("weight", "bias", "running_mean", "running_var"))

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _lazy_materialize(self, name, shape):  # num_features stays 0 until the first call, as in PyTorch
        self._materialize_one(name, shape)

    def _materialize_one(self, name, shape):
        b = self._buffers.get(name)
        if isinstance(b, UninitializedBuffer):
            b.materialize(shape)
            with no_grad():
                b.zero_()
        else:
            _materialize(self, name, shape)

    def initialize_parameters(self, input, *args, **kwargs):
        self.num_features = int(input.shape[1] if input.dim() > 1 else input.shape[0])
        for name in ("weight", "bias", "running_mean", "running_var"):
            self._materialize_one(name, (self.num_features,))
        self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """msnb implementation of ``torch.nn.LazyBatchNorm1d``."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """msnb implementation of ``torch.nn.LazyBatchNorm2d``."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """msnb implementation of ``torch.nn.LazyBatchNorm3d``."""

    cls_to_become = BatchNorm3d
