"""``torch.optim.Adam`` and ``AdamW`` (amsgrad, weight decay, maximize)."""

from __future__ import annotations

import math

from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """msnb implementation of ``torch.optim.Adam``."""

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay or self._decoupled))

    def _step_group(self, group):
        from .._ops.creation import tensor, zeros_like
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if group["maximize"]:
                g = -g
            state = self.state[p]
            if not state:
                state["step"] = tensor(0.0)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p)
            state["step"].add_(1)
            step = state["step"].item()
            if wd:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * wd)
                else:
                    g = g + p * wd
            m, v = state["exp_avg"], state["exp_avg_sq"]
            m.lerp_(g, 1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            bc1 = 1 - b1 ** step
            bc2 = 1 - b2 ** step
            if group["amsgrad"]:
                mx = state["max_exp_avg_sq"]
                mx.copy_(mx.maximum(v))
                denom = (mx.sqrt() / math.sqrt(bc2)) + eps
            else:
                denom = (v.sqrt() / math.sqrt(bc2)) + eps
            p.addcdiv_(m, denom, value=-lr / bc1)


class AdamW(Adam):
    """msnb implementation of ``torch.optim.AdamW`` (decoupled weight decay, default 1e-2)."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, **kw):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kw)
