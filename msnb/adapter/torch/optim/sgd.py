"""``torch.optim.SGD`` (momentum, dampening, nesterov, weight decay, maximize)."""

from __future__ import annotations

from .._core import K, wrap
from .optimizer import Optimizer, assign, axpy, grad_of, sc

__all__ = ["SGD"]


class SGD(Optimizer):
    """msnb implementation of ``torch.optim.SGD``: PyTorch's single-tensor update, step for step.

    Kernels per parameter: 2 (plain), 4 with momentum, +2 with weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("torch.optim.SGD(differentiable=True) is not supported by msnb yet")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def _step_group(self, group):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = grad_of(p, maximize)
            if wd != 0:
                grad = axpy(grad, p, wd)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    # PyTorch: buf = grad.detach().clone()
                    buf = state["momentum_buffer"] = wrap(grad if grad is not p.grad else K.identity(grad))
                else:
                    assign(buf, axpy(K.mul(buf, sc(p, momentum)), grad, 1 - dampening))
                grad = axpy(grad, buf, momentum) if nesterov else buf
            assign(p, axpy(p, grad, -lr))
