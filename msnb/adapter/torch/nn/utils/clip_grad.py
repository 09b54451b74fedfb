"""``clip_grad_norm_`` / ``clip_grad_value_`` with PyTorch's formulas."""

from __future__ import annotations

from .... import graph as _graph
from ....graph import step as _graph_step
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]


def _with_grads(parameters):
    from ..._tensor import Tensor
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def _grads(parameters):
    return [p.grad for p in _with_grads(parameters)]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """msnb implementation of ``torch.nn.utils.clip_grad_norm_``; returns the total norm."""
    from ..._ops.creation import tensor
    norm_type = float(norm_type)  # PyTorch converts it first: a bad one is its ValueError even with no grads
    params = _with_grads(parameters)
    grads = [p.grad for p in params]
    if not grads:
        return tensor(0.0)
    if any("_dspec" in p.__dict__ for p in params):  # FSDP / tensor-parallel pieces: the whole gradients' norm
        from ...distributed.tensor._sharded import clip_grad_norm
        return clip_grad_norm(params, max_norm, norm_type, error_if_nonfinite)
    if _graph.STATE.enabled and not error_if_nonfinite:
        # graph mode: compiled (the non-finite check would read the norm on the host)
        return _graph_step.clip(params, grads, (float(max_norm), norm_type),
                                lambda: _clip_norm(grads, max_norm, norm_type, False))
    return _clip_norm(grads, max_norm, norm_type, error_if_nonfinite)


def _clip_norm(grads, max_norm, norm_type, error_if_nonfinite):
    from ..._ops.shape import stack
    with no_grad():
        if norm_type == float("inf"):
            total = stack([g.abs().max() for g in grads]).max()
        else:
            total = stack([g.norm(norm_type) for g in grads]).norm(norm_type)
        if error_if_nonfinite and not bool(total.isfinite().item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped.")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)
    return total


clip_grad_norm = clip_grad_norm_


def clip_grad_value_(parameters, clip_value, foreach=None):
    """msnb implementation of ``torch.nn.utils.clip_grad_value_``."""
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
