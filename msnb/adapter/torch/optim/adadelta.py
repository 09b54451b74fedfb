"""``torch.optim.Adadelta`` (rho, eps, weight decay, maximize)."""

from __future__ import annotations

from .._core import K
from .._ops.creation import zeros_like
from .adam import _check_unsupported
from .optimizer import Optimizer, addcmul, assign, axpy, bump_step, grad_of, sc, step_tensor

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """msnb implementation of ``torch.optim.Adadelta``: PyTorch's single-tensor update, step for step."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_unsupported("Adadelta", capturable, differentiable, None)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def _step_group(self, group):
        lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_tensor()
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            bump_step(state["step"])
            grad = grad_of(p, group["maximize"])
            if wd != 0:
                grad = axpy(grad, p, wd)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            assign(square_avg, addcmul(K.mul(square_avg, sc(p, rho)), grad, grad, 1 - rho))
            std = K.sqrt(K.add(square_avg, sc(p, eps)))
            delta = K.mul(K.div(K.sqrt(K.add(acc_delta, sc(p, eps))), std), grad)
            assign(acc_delta, addcmul(K.mul(acc_delta, sc(p, rho)), delta, delta, 1 - rho))
            assign(p, axpy(p, delta, -lr))
