"""The ``functorch`` package's API (its pre-``torch.func`` spelling, still used by the
forward-AD tutorial) against real functorch: ``make_functional`` /
``make_functional_with_buffers`` give a model called with its parameters passed in, whose
``jvp`` over the parameters, gradients and values match; ``combine_state_for_ensemble``
stacks an ensemble for ``vmap``; and ``import functorch`` works under ``msnb exec`` (the
real package imports its names from ``torch._functorch``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
R = np.random.default_rng(2)
X = R.standard_normal((6, 5)).astype(np.float32)


def ft(t):
    if t.__name__ == "torch":
        import functorch
        return functorch
    from msnb.adapter.torch._functorch import deprecated
    return deprecated


def beh(id, fn, names=("torch.func.jvp", "torch.func.functional_call"), **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


def model(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(5, 4), t.nn.BatchNorm1d(4), t.nn.Tanh(), t.nn.Linear(4, 2))


def jvp_over_params(t):
    t.manual_seed(0)
    m = t.nn.Linear(5, 5)
    func, params = ft(t).make_functional(m)
    tangents = tuple(t.ones_like(p) * 0.25 for p in params)
    x = t.tensor(X)
    out, jvp_out = ft(t).jvp(lambda ps: func(ps, x), (params,), (tangents,))
    return out, jvp_out, len(params), params[0] is m.weight, type(params[0]).__name__


def with_buffers(t):
    m = model(t).eval()  # in training mode BatchNorm's running-stat update is a mutation PyTorch refuses here
    func, params, buffers = ft(t).make_functional_with_buffers(m)
    x = t.tensor(X)
    out = func(params, buffers, x)
    g = ft(t).grad(lambda ps: func(ps, buffers, x).pow(2).sum())(params)
    return out, g, len(buffers), [tuple(b.shape) for b in buffers], len(list(func.parameters()))


def refuses_buffers(t):
    ft(t).make_functional(model(t))


def ensemble(t):
    t.manual_seed(1)
    models = [t.nn.Linear(5, 3) for _ in range(3)]
    fmodel, params, buffers = ft(t).combine_state_for_ensemble(models)
    x = t.tensor(X)
    return ft(t).vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x), [tuple(p.shape) for p in params]


beh("make_functional then jvp over the parameters", jvp_over_params)
beh("make_functional_with_buffers then grad", with_buffers)
CASES.append(case("make_functional refuses a model with buffers", ("torch.func.functional_call",), refuses_buffers,
                  kind="raises"))
beh("combine_state_for_ensemble under vmap", ensemble, names=("torch.func.vmap", "torch.func.stack_module_state"))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_functorch_matches_pytorch(c):
    run_case(c)


def test_import_functorch_under_msnb(tmp_path):
    """``import functorch`` inside msnb: the installed package binds msnb's transforms."""
    script = tmp_path / "f.py"
    script.write_text(textwrap.dedent('''
        import torch, functorch
        assert torch.__version__.endswith("+msnb")
        x = torch.arange(4.0)
        out, tangent = functorch.jvp(lambda a: a ** 2, (x,), (torch.ones(4),))
        print(tangent.tolist(), functorch.vmap(torch.sum)(x.reshape(2, 2)).tolist())
    '''))
    env = dict(os.environ, GLOG_v="3", MSNB_KERNEL_TUNING="0")
    p = subprocess.run([sys.executable, "-m", "msnb", "exec", str(script)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip().splitlines()[-1] == "[0.0, 2.0, 4.0, 6.0] [1.0, 5.0]"
