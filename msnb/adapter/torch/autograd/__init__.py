"""msnb implementation of ``torch.autograd``."""

from __future__ import annotations

import sys

from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .graph import Node, run_backward
from . import function, grad_mode, graph
from . import gradcheck as _gradcheck_module  # noqa: F401 - importable as torch.autograd.gradcheck's module too
from .gradcheck import gradcheck, gradgradcheck  # the functions shadow the module name, as in PyTorch

__all__ = ["backward", "grad", "Variable", "Function", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "graph", "gradcheck", "gradgradcheck"]


def _as_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _grads_for(tensors, grad_tensors):
    from .._ops.creation import ones_like
    out = []
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    for t, g in zip(tensors, grad_tensors):
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = ones_like(t)
        elif not hasattr(g, "shape"):
            from .._ops.creation import full
            g = full(tuple(t.shape), g, dtype=t.dtype)
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """msnb implementation of ``torch.autograd.backward``."""
    tensors = _as_tuple(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    for t in tensors:
        if not t.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, _grads_for(tensors, grad_tensors), retain_graph, create_graph,
                 inputs=_as_tuple(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """msnb implementation of ``torch.autograd.grad``."""
    masked = sys.modules.get("msnb.adapter.torch.masked.maskedtensor")  # none made if never imported
    if masked is not None and masked.masked_in(outputs, inputs):  # gradients of / to MaskedTensors: on their data
        return masked.masked_grad(grad, outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                  create_graph=create_graph, allow_unused=allow_unused,
                                  materialize_grads=materialize_grads)
    outputs = _as_tuple(outputs)
    single = not isinstance(inputs, (tuple, list))
    inputs = _as_tuple(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    res = run_backward(outputs, _grads_for(outputs, grad_outputs), retain_graph, create_graph,
                       inputs=inputs, capture=True, allow_unused=bool(allow_unused or materialize_grads))
    if materialize_grads:
        from .._ops.creation import zeros_like
        res = tuple(g if g is not None else zeros_like(i) for g, i in zip(res, inputs))
    return res


def Variable(data, requires_grad=False, volatile=False):  # noqa: N802 - torch's spelling
    """``torch.autograd.Variable`` as PyTorch keeps it: returns a tensor."""
    from .._tensor import Tensor
    from .._ops.creation import tensor
    t = data if isinstance(data, Tensor) else tensor(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.autograd")
