"""``parameters_to_vector`` / ``vector_to_parameters``."""

from __future__ import annotations

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    from ..._ops.shape import cat
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    from ...autograd.grad_mode import no_grad
    i = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[i:i + n].view_as(p))
            i += n
