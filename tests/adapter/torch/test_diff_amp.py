"""Differential tests: the autocast switches and GradScaler's bookkeeping
behave as real PyTorch's (CPU device type, float16), including the
``torch.cuda.amp`` spellings."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

CASES = []


def beh(id, names, fn, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def _autocast_state(t):
    with t.autocast("cpu", dtype=t.float16):
        inside = (t.is_autocast_enabled("cpu"), t.get_autocast_dtype("cpu"),
                  (t.ones(2, 3) @ t.ones(3, 2)).dtype)
    return inside, t.is_autocast_enabled("cpu")


beh("autocast", registered("torch.autocast", "torch.is_autocast_enabled", "torch.get_autocast_dtype"),
    _autocast_state)


def _set_autocast(t):
    prev = t.get_autocast_dtype("cpu")
    t.set_autocast_dtype("cpu", t.float16)
    t.set_autocast_enabled("cpu", True)
    state = (t.is_autocast_enabled("cpu"), t.get_autocast_dtype("cpu"))
    t.set_autocast_enabled("cpu", False)
    t.set_autocast_dtype("cpu", prev)
    return state, t.is_autocast_enabled("cpu")


beh("set_autocast", registered("torch.set_autocast_enabled", "torch.set_autocast_dtype"), _set_autocast)


def _scaler_run(t, make):
    scaler = make(t)
    p = t.nn.Parameter(t.ones(3))
    opt = t.optim.SGD([p], lr=0.1)
    trace = []
    for g in ([1.0, 2.0, 3.0], [float("inf"), 0.0, 1.0], [0.5, 0.5, 0.5], [float("nan"), 1.0, 1.0]):
        opt.zero_grad()
        (scaler.scale((p * t.tensor(g)).sum())).backward()
        scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), p.detach().numpy().round(5).tolist()))
    return trace


def _cuda_scaler(t):
    # a CUDA-style scaler runs where msnb runs; real torch has no CUDA here, so compare with its CPU scaler
    return t.amp.GradScaler("cpu", init_scale=2.0 ** 8, growth_interval=2) if t.__name__ == "torch" else \
        t.cuda.amp.GradScaler(init_scale=2.0 ** 8, growth_interval=2)


beh("cuda.amp.GradScaler", registered("torch.cuda.amp.GradScaler"), lambda t: _scaler_run(t, _cuda_scaler))


def _cuda_autocast(t):
    ctx = t.autocast("cpu", dtype=t.float16) if t.__name__ == "torch" else t.cuda.amp.autocast(dtype=t.float16)
    with ctx:
        return (t.ones(2, 3) @ t.ones(3, 2)).dtype


beh("cuda.amp.autocast", registered("torch.cuda.amp.autocast"), _cuda_autocast)


def _custom_fwd_bwd(t):
    amp = t.amp if t.__name__ == "torch" else t.cuda.amp

    class Square(t.autograd.Function):
        @staticmethod
        @(amp.custom_fwd(device_type="cpu") if t.__name__ == "torch" else amp.custom_fwd)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @(amp.custom_bwd(device_type="cpu") if t.__name__ == "torch" else amp.custom_bwd)
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = t.tensor([1.0, 3.0], requires_grad=True)
    Square.apply(x).sum().backward()
    return x.grad


beh("cuda.amp.custom_fwd/bwd", registered("torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd"), _custom_fwd_bwd)



def _amp_namespace(t):
    with t.amp.autocast("cpu", dtype=t.float16):
        dtype = (t.ones(2, 2) @ t.ones(2, 2)).dtype
    return dtype, t.amp.is_autocast_available("cpu")


beh("amp.autocast", registered("torch.amp.autocast", "torch.amp.is_autocast_available"), _amp_namespace)
beh("amp.GradScaler", registered("torch.amp.GradScaler"),
    lambda t: _scaler_run(t, lambda tt: tt.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)))


def _amp_custom(t):
    class Cube(t.autograd.Function):
        @staticmethod
        @t.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @t.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = t.tensor([1.0, -2.0], requires_grad=True)
    Cube.apply(x).sum().backward()
    return x.grad


beh("amp.custom_fwd/bwd", registered("torch.amp.custom_fwd", "torch.amp.custom_bwd"), _amp_custom)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_amp(c):
    run_case(c)
