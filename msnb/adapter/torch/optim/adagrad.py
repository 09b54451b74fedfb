"""``torch.optim.Adagrad`` (lr_decay, initial_accumulator_value, weight decay, maximize)."""

from __future__ import annotations

from .._core import K
from .._ops.creation import full_like
from .adam import _check_unsupported
from .optimizer import Optimizer, addcdiv, addcmul, assign, axpy, bump_step, grad_of, sc, step_tensor

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """msnb implementation of ``torch.optim.Adagrad``: PyTorch's single-tensor (dense) update.

    Like PyTorch, the state (``step``, ``sum``) exists from construction on."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_unsupported("Adagrad", None, differentiable, fused)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = step_tensor()
        state["sum"] = full_like(p, group["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)

    def _step_group(self, group):
        lr, lr_decay, eps, wd = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                self._init_state(p, group)
            step = bump_step(state["step"])
            grad = grad_of(p, group["maximize"])
            if wd != 0:
                grad = axpy(grad, p, wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]
            assign(state_sum, addcmul(state_sum, grad, grad, 1))
            std = K.add(K.sqrt(state_sum), sc(p, eps))
            assign(p, addcdiv(p, grad, std, -clr))
