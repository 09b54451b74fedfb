"""``functorch.make_functional`` / ``make_functional_with_buffers``: a copy of a
module called with parameter (and buffer) values passed in, on msnb's
``torch.func.functional_call``."""

from __future__ import annotations

import copy

from ..func._module import functional_call
from ..nn.modules.module import Module

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "make_functional", "make_functional_with_buffers"]


class FunctionalModule(Module):
    """What :func:`make_functional` returns: ``fmodel(params, *args, **kwargs)``."""

    def __init__(self, stateless_model, param_names):
        super().__init__()
        self.stateless_model = stateless_model  # a submodule, as in PyTorch (its parameters list there too)
        self.param_names = tuple(param_names)

    def forward(self, params, *args, **kwargs):
        params = tuple(params)
        if len(params) != len(self.param_names):
            raise RuntimeError(f"FunctionalModule expected {len(self.param_names)} parameters, got {len(params)}")
        return functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """What :func:`make_functional_with_buffers` returns: ``fmodel(params, buffers, *args, **kwargs)``."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.buffer_names = tuple(buffer_names)

    def forward(self, params, buffers, *args, **kwargs):
        values = dict(zip(self.param_names, tuple(params)))
        values.update(zip(self.buffer_names, tuple(buffers)))
        return functional_call(self.stateless_model, values, args, kwargs)


def _copy_and_params(model, disable_autograd_tracking):
    clone = copy.deepcopy(model)
    names, params = zip(*clone.named_parameters()) if any(True for _ in clone.parameters()) else ((), ())
    if disable_autograd_tracking:
        for p in params:
            p.requires_grad_(False)
    return clone, names, tuple(params)


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)``: ``fmodel(params, x)`` runs a copy of ``model`` with ``params``."""
    if not isinstance(model, Module):
        raise RuntimeError(f"Expected model to be an nn.Module, got {type(model)}")
    if any(True for _ in model.buffers()):
        raise RuntimeError("make_functional(module): we only support models with no buffers. Please use "
                           "make_functional_with_buffers(module) instead.")
    clone, names, params = _copy_and_params(model, disable_autograd_tracking)
    return FunctionalModule(clone, names), params


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)``: ``fmodel(params, buffers, x)`` runs a copy of ``model`` with them."""
    if not isinstance(model, Module):
        raise RuntimeError(f"Expected model to be an nn.Module, got {type(model)}")
    clone, names, params = _copy_and_params(model, disable_autograd_tracking)
    named = list(clone.named_buffers())
    return (FunctionalModuleWithBuffers(clone, names, [n for n, _ in named]), params,
            tuple(b for _, b in named))
