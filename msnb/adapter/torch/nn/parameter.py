"""``torch.nn.Parameter`` and ``Buffer``."""

from __future__ import annotations

from .. import _core
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter"]


class Parameter(Tensor):
    """msnb implementation of ``torch.nn.Parameter``: a leaf tensor a Module registers."""

    def __new__(cls, data=None, requires_grad=True):
        from .._ops.creation import zeros
        if data is None:
            data = zeros(0)
        obj = _core.K.identity(data.detach() if isinstance(data, Tensor) else data)
        obj.__class__ = cls
        obj._req_grad = bool(requires_grad)
        return obj

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (Parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo):
        out = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = out
        return out


UninitializedParameter = Parameter


class Buffer(Tensor):
    """msnb implementation of ``torch.nn.Buffer``: marks a tensor as a module buffer."""

    def __new__(cls, data=None, *, persistent=True):
        obj = _core.K.identity(data)
        obj.__class__ = Tensor
        obj._buffer_persistent = persistent
        return obj
