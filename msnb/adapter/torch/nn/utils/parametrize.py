"""msnb implementation of ``torch.nn.utils.parametrize``: a tensor of a module computed from
an ``original`` parameter by parametrization modules, as in PyTorch.

``register_parametrization(module, "weight", P)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` and gives the module (through a
subclass made for it, as PyTorch does) a ``weight`` property that returns
``P(original)`` -- so the state_dict keys, ``right_inverse`` on assignment,
stacking several parametrizations, ``cached()`` and ``remove_parametrizations``
behave as PyTorch's.  ``right_inverse`` returning several tensors is not
supported.
"""

from __future__ import annotations

import contextlib

from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "is_parametrized", "remove_parametrizations", "cached",
           "ParametrizationList", "type_before_parametrizations", "transfer_parametrizations_and_params"]

_CACHE: dict | None = None


@contextlib.contextmanager
def cached():
    """Inside this context each parametrized tensor is computed once (``P(original)`` is kept)."""
    global _CACHE
    outer = _CACHE
    if outer is None:
        _CACHE = {}
    try:
        yield
    finally:
        if outer is None:
            _CACHE = None


def _right_inverse(m, value):
    if not hasattr(m, "right_inverse"):
        return value
    out = m.right_inverse(value)
    if isinstance(out, (tuple, list)):
        raise NotImplementedError("torch.nn.utils.parametrize with a right_inverse returning several tensors is "
                                  "not supported by msnb yet")
    return out


class ParametrizationList(ModuleList):
    """msnb implementation of ``torch.nn.utils.parametrize.ParametrizationList``: the
    parametrizations of one tensor and its ``original``."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new = original
            for m in reversed(list(self)):
                new = _right_inverse(m, new)
        if not unsafe and (tuple(new.shape) != tuple(original.shape) or new.dtype is not original.dtype):
            raise ValueError(f"When `right_inverse` is called, it must return a tensor of the shape and dtype of the "
                             f"original ({tuple(original.shape)}, {original.dtype}); got ({tuple(new.shape)}, "
                             f"{new.dtype})")
        req = original.requires_grad if isinstance(original, Parameter) else False
        if isinstance(original, Parameter) and new is original:
            self.original = original
        else:
            self.original = Parameter(new.detach().clone(), requires_grad=req)

    def right_inverse(self, value):
        """Set ``original`` so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for m in reversed(list(self)):
                if not hasattr(m, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(m).__name__} does not implement right_inverse.")
                value = _right_inverse(m, value)
            self.original.copy_(value)

    def forward(self):
        x = self.original
        for m in self:
            x = m(x)
        return x


def _property(name):
    def get(self):
        plist = self.parametrizations[name]
        if _CACHE is not None:
            key = (id(self), name)
            if key not in _CACHE:
                _CACHE[key] = plist()
            return _CACHE[key]
        return plist()

    def set(self, value):
        self.parametrizations[name].right_inverse(value)
    return property(get, set)


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` (or its tensor ``tensor_name``) has a parametrization."""
    plist = module.__dict__.get("_modules", {}).get("parametrizations")
    if plist is None:
        return False
    return len(plist) > 0 if tensor_name is None else tensor_name in plist


def type_before_parametrizations(module):
    """The module's class before ``register_parametrization`` gave it a subclass."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """msnb implementation of ``torch.nn.utils.parametrize.register_parametrization``."""
    if not isinstance(parametrization, Module):
        raise TypeError("the parametrization must be an nn.Module (e.g. wrap a function in one)")
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if tuple(x.shape) != tuple(y.shape) or x.dtype is not y.dtype:
                raise ValueError("Registering a parametrization may not change the shape or dtype of the tensor "
                                 f"({tuple(y.shape)} -> {tuple(x.shape)})")
        plist.append(parametrization)
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    if not unsafe:
        with no_grad():
            z = plist()
        if tuple(z.shape) != tuple(original.shape) or z.dtype is not original.dtype:
            raise ValueError("Registering a parametrization may not change the shape or dtype of the tensor "
                             f"({tuple(original.shape)} -> {tuple(z.shape)})")
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"__module__": cls.__module__})
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    setattr(type(module), tensor_name, _property(tensor_name))
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """msnb implementation of ``torch.nn.utils.parametrize.remove_parametrizations``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if leave_parametrized:
        with no_grad():
            value = plist()
        new = Parameter(value.detach().clone(), requires_grad=plist.original.requires_grad)
    else:
        new = plist.original
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    setattr(module, tensor_name, new)
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type(module).__bases__[0]
    return module


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (and their originals) of ``from_module`` onto ``to_module``."""
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        plist = from_module.parametrizations[name]
        if not is_parametrized(to_module, name):
            setattr(to_module, name, Parameter(plist.original.detach().clone()))
        for p in plist:
            register_parametrization(to_module, name, p, unsafe=True)
        with no_grad():
            to_module.parametrizations[name].original.copy_(plist.original)
    return to_module


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.utils.parametrize")
