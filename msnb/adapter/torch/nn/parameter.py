"""``torch.nn.Parameter`` and ``Buffer``.

An msnb Parameter is at once a ``torch.nn.Parameter`` (an adapter tensor) and
a ``mindspore.Parameter``, so MindSpore's optimizers, ``value_and_grad`` and
``TrainOneStepCell`` accept it unchanged.  Writes into it go to its own memory
(``ops.assign``), which graphs MindSpore compiled around it keep using."""

from __future__ import annotations

import mindspore as ms

from .. import _core
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


class Parameter(Tensor, ms.Parameter):
    """msnb implementation of ``torch.nn.Parameter``: a leaf tensor a Module registers."""

    _is_param = True

    def __new__(cls, data=None, requires_grad=True):
        from .._ops.creation import zeros
        if data is None:
            data = zeros(0)
        src = _core.K.identity(data.detach() if isinstance(data, Tensor) else data)
        obj = ms.Tensor.__new__(cls)
        ms.Tensor.__init__(obj, src)
        obj.init_mode = None
        obj.is_default_input_init = False
        return obj

    def __init__(self, data=None, requires_grad=True):
        ms.Parameter.__init__(self, self, requires_grad=bool(requires_grad))
        self._req_grad = bool(requires_grad)

    def clone(self, init=None, *, memory_format=None):
        """``torch`` spelling: a new tensor with this one's value (in the graph).
        MindSpore's spelling ``clone(init)`` (used by its optimizers) makes a new Parameter."""
        if init is not None:
            return ms.Parameter.clone(self, init)
        return Tensor.clone(self)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach().numpy(), self.requires_grad, self.name))

    def __deepcopy__(self, memo):
        out = Parameter(Tensor.clone(self.detach()), self.requires_grad)
        memo[id(self)] = out
        return out

    def __copy__(self):
        return Parameter(self.detach(), self.requires_grad)


def _rebuild_parameter(arr, requires_grad, name):
    from .._ops.creation import tensor
    p = Parameter(tensor(arr), requires_grad)
    p.name = name
    return p


class UninitializedParameter(Parameter):
    """msnb implementation of ``torch.nn.UninitializedParameter``: the
    placeholder a lazy module holds until its first call gives it a shape.
    ``materialize`` fills this same object and makes it a ``Parameter``, as in
    PyTorch, so an optimizer or any other holder of it sees the real parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, None, requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(None, requires_grad)
        self.__dict__["_lazy_dtype"] = dtype

    def materialize(self, shape, device=None, dtype=None):
        """Become a ``Parameter`` of ``shape`` (uninitialised values), in place."""
        from ... import _ms
        _materialize_placeholder(self, shape, dtype, _ms.refill_parameter)

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__

    def _unsupported(self, *args, **kwargs):
        raise ValueError("Attempted to use an uninitialized parameter in a lazy module. "
                         "Run a forward pass (a dry run) before using it.")

    numel = numpy = tolist = item = _unsupported


class UninitializedBuffer(Tensor):
    """msnb implementation of ``torch.nn.UninitializedBuffer``: the buffer placeholder a lazy
    module (LazyBatchNorm's running statistics) holds until its first call; it refuses values
    as ``UninitializedParameter`` does, and ``materialize`` makes it a tensor of the shape."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .._ops.creation import zeros
        t = zeros(0, dtype=dtype)
        t.__class__ = cls
        t.__dict__["_lazy_dtype"] = dtype
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def materialize(self, shape, device=None, dtype=None):
        """Become a tensor of ``shape`` (uninitialised values), in place."""
        from ... import _ms
        _materialize_placeholder(self, shape, dtype, _ms.set_data)

    def __repr__(self):
        return "<UninitializedBuffer>"

    __str__ = __repr__
    numel = numpy = tolist = item = UninitializedParameter._unsupported


def _materialize_placeholder(p, shape, dtype, write):
    """``p`` (a lazy placeholder) takes ``write(p, data)`` an uninitialised tensor of ``shape`` and
    the placeholder's dtype (else ``dtype``, else the default), then becomes ``cls_to_become``."""
    from .. import _dtype
    from .._ops.creation import empty
    if isinstance(shape, int):
        shape = (shape,)
    dtype = dtype or p.__dict__.pop("_lazy_dtype", None) or _dtype.get_default_dtype()
    write(p, empty(*shape, dtype=dtype))
    p.__class__ = p.cls_to_become


def is_lazy(param) -> bool:
    """``torch.nn.parameter.is_lazy``."""
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))


class Buffer(Tensor):
    """msnb implementation of ``torch.nn.Buffer``: marks a tensor as a module buffer."""

    def __new__(cls, data=None, *, persistent=True):
        obj = _core.K.identity(data)
        obj.__class__ = Tensor
        obj._buffer_persistent = persistent
        return obj
