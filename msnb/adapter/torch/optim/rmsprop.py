"""``torch.optim.RMSprop`` (centered, momentum, weight decay, maximize)."""

from __future__ import annotations

from .._core import K
from .._ops.creation import zeros_like
from .adam import _check_unsupported
from .optimizer import Optimizer, addcdiv, addcmul, assign, axpy, bump_step, grad_of, sc, lerp, step_tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """msnb implementation of ``torch.optim.RMSprop``: PyTorch's single-tensor update, step for step."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _check_unsupported("RMSprop", capturable, differentiable, None)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("maximize", False)

    def _step_group(self, group):
        lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
        momentum, centered = group["momentum"], group["centered"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_tensor()
                state["square_avg"] = zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if centered:
                    state["grad_avg"] = zeros_like(p)
            grad = grad_of(p, group["maximize"])
            bump_step(state["step"])
            if wd != 0:
                grad = axpy(grad, p, wd)
            square_avg = state["square_avg"]
            assign(square_avg, addcmul(K.mul(square_avg, sc(p, alpha)), grad, grad, 1 - alpha))
            if centered:
                grad_avg = state["grad_avg"]
                assign(grad_avg, lerp(grad_avg, grad, 1 - alpha))
                # square_avg.addcmul(grad_avg, grad_avg, value=-1): (-1*g)*g + s == s - g*g exactly
                avg = K.sqrt(K.sub(square_avg, K.mul(grad_avg, grad_avg)))
            else:
                avg = K.sqrt(square_avg)
            avg = K.add(avg, sc(p, eps))
            if momentum > 0:
                buf = state["momentum_buffer"]
                assign(buf, addcdiv(K.mul(buf, sc(p, momentum)), grad, avg))
                assign(p, axpy(p, buf, -lr))
            else:
                assign(p, addcdiv(p, grad, avg, -lr))
