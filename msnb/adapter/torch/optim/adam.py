"""``torch.optim.Adam`` (amsgrad, weight decay coupled or decoupled, maximize)."""

from __future__ import annotations

from .._core import K
from .._ops.creation import zeros_like
from .optimizer import Optimizer, addcdiv, addcmul, assign, axpy, bump_step, grad_of, sc, lerp, step_tensor

__all__ = ["Adam"]


def _check_unsupported(name, capturable, differentiable, fused):
    for arg, val in (("capturable", capturable), ("differentiable", differentiable), ("fused", fused)):
        if val:
            raise NotImplementedError(f"torch.optim.{name}({arg}=True) is not supported by msnb yet")


class Adam(Optimizer):
    """msnb implementation of ``torch.optim.Adam``: PyTorch's single-tensor update, step for step.

    Kernels per parameter: 13 (+1 amsgrad, +1 or 2 weight decay, +1 maximize)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_unsupported(type(self).__name__, capturable, differentiable, fused)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def _step_group(self, group):
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        amsgrad, decoupled = group["amsgrad"], group["decoupled_weight_decay"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = step_tensor()
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = zeros_like(p)
            grad = grad_of(p, group["maximize"])
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step = bump_step(state["step"])
            pv = p  # the decayed value: p is written once per step (a recorded step reads the write back)
            if wd != 0:
                if decoupled:
                    pv = K.mul(p, sc(p, 1 - lr * wd))
                else:
                    grad = axpy(grad, p, wd)
            assign(exp_avg, lerp(exp_avg, grad, 1 - beta1))
            assign(exp_avg_sq, addcmul(K.mul(exp_avg_sq, sc(p, beta2)), grad, grad, 1 - beta2))
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if amsgrad:
                mx = state["max_exp_avg_sq"]
                assign(mx, K.maximum(mx, exp_avg_sq))
                second = mx
            else:
                second = exp_avg_sq
            denom = K.add(K.div(K.sqrt(second), sc(p, bias_correction2_sqrt)), sc(p, eps))
            assign(p, addcdiv(pv, exp_avg, denom, -step_size))
