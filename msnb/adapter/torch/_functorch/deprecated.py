"""The functions ``functorch`` exports (its pre-``torch.func`` API), on msnb's
``torch.func`` transforms."""

from __future__ import annotations

import functools

from ..func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap
from ..func._module import stack_module_state
from .make_functional import make_functional, make_functional_with_buffers

__all__ = ["combine_state_for_ensemble", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev",
           "jvp", "make_functional", "make_functional_with_buffers", "vjp", "vmap"]


def functionalize(func, *, remove="mutations"):
    """``functorch.functionalize``: the same results as ``func`` (msnb records no mutation graph to
    rewrite: it runs ``func`` itself)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapped


def combine_state_for_ensemble(models):
    """``(fmodel, params, buffers)`` for ``vmap`` over an ensemble of same-structured models: the
    parameters and buffers stacked along a new leading dimension."""
    models = list(models)
    if not models:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    fmodel, _, _ = make_functional_with_buffers(models[0])
    params, buffers = stack_module_state(models)
    return fmodel, tuple(params[n] for n in fmodel.param_names), tuple(buffers[n] for n in fmodel.buffer_names)
