"""Every optimizer, step for step against real PyTorch (parameters and state)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

from ..harness import COVERED
from ._common import (assert_params_equal, assert_state_equal, grad_arrays, init_arrays, make_params, set_grads,
                      to_np, torch_state_dict_to_msnb)

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.02, maximize=True, eps=1e-6)),
    ("Adam", dict(lr=0.01, weight_decay=0.05, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.01, betas=(0.6, 0.9))),  # 1 - beta1 >= 0.5: lerp's second branch
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.005, centered=True, momentum=0.5, alpha=0.9, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, initial_accumulator_value=0.2, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, eps=1e-6, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(lr=1.0, maximize=True)),
]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_lockstep_with_torch(name, kw):
    COVERED.add(f"torch.optim.{name}")
    rps, mps = make_params(init_arrays())
    ropt = getattr(real.optim, name)(rps, foreach=False, **kw)
    mopt = getattr(mt.optim, name)(mps, foreach=False, **kw)
    for i, gs in enumerate(grad_arrays()):
        set_grads(rps, mps, gs)
        ropt.step()
        mopt.step()
        assert_params_equal(rps, mps, f"step {i}")
        assert_state_equal(ropt, mopt, f"step {i}")


def test_param_without_grad_is_skipped_and_gets_no_state():
    rps, mps = make_params(init_arrays())
    ropt, mopt = real.optim.Adam(rps, lr=0.1), mt.optim.Adam(mps, lr=0.1)
    for gs in grad_arrays(steps=3):
        set_grads(rps, mps, [gs[0], None])
        ropt.step()
        mopt.step()
    assert_params_equal(rps, mps)
    assert_state_equal(ropt, mopt)
    assert len(mopt.state) == 1


def test_param_groups_with_per_group_options():
    """The MSAdapter guide's section 3.4 written in PyTorch: per-group lr, weight decay, momentum."""
    COVERED.update({"torch.optim.Optimizer.add_param_group", "torch.optim.Optimizer.zero_grad"})
    arrays = init_arrays(shapes=[(4, 3), (3,), (2, 2)])
    grads = grad_arrays(shapes=[(4, 3), (3,), (2, 2)], steps=6)
    rps, mps = make_params(arrays)

    def build(lib, ps):
        opt = lib.optim.SGD([{"params": ps[:1], "weight_decay": 0.01, "lr": 0.001},
                             {"params": [ps[1]], "lr": 0.003}], lr=0.1, momentum=0.9)
        return opt

    ropt, mopt = build(real, rps), build(mt, mps)
    for i, gs in enumerate(grads):
        if i == 3:  # a new group joins mid-training (fine-tuning a frozen layer)
            ropt.add_param_group({"params": rps[2], "momentum": 0.5})
            mopt.add_param_group({"params": mps[2], "momentum": 0.5})
        set_grads(rps, mps, gs)
        ropt.step()
        mopt.step()
        assert_params_equal(rps, mps, f"step {i}")
        assert_state_equal(ropt, mopt)
    assert [g["lr"] for g in mopt.param_groups] == [0.001, 0.003, 0.1]
    assert mopt.param_groups[0]["weight_decay"] == 0.01 and mopt.param_groups[1]["weight_decay"] == 0
    assert [g["momentum"] for g in mopt.param_groups] == [0.9, 0.9, 0.5]
    assert mopt.state_dict()["param_groups"] == ropt.state_dict()["param_groups"]
    assert repr(mopt) == repr(ropt)


def test_add_param_group_rejects_duplicates_and_non_tensors():
    _, mps = make_params(init_arrays())
    opt = mt.optim.SGD(mps[:1], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": mps[:1]})
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        opt.add_param_group({"params": [1.0]})
    with pytest.raises(TypeError, match="ordered collections"):
        opt.add_param_group({"params": {mps[1]}})
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        mt.optim.Adam([])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        mt.optim.SGD(mps, lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        mt.optim.SGD(mps, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        mt.optim.Adam(mps, betas=(0.9, 1.0))


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    rps, mps = make_params(init_arrays())
    ropt, mopt = real.optim.SGD(rps, lr=0.1), mt.optim.SGD(mps, lr=0.1)
    set_grads(rps, mps, grad_arrays(steps=1)[0])
    alias = mps[0].grad
    ropt.zero_grad(set_to_none=set_to_none)
    mopt.zero_grad(set_to_none=set_to_none)
    for rp, mp in zip(rps, mps):
        if set_to_none:
            assert rp.grad is None and mp.grad is None
        else:
            assert mp.grad is not None and np.all(to_np(mp.grad) == 0) and np.all(to_np(rp.grad) == 0)
    if not set_to_none:  # zeroed in place, as PyTorch does
        assert mps[0].grad is alias


def test_zero_grad_then_backward_trains_like_torch():
    """A real loop: loss.backward() fills grads, step, zero_grad."""
    x = np.random.default_rng(3).standard_normal((8, 3)).astype(np.float32)
    y = np.random.default_rng(4).standard_normal((8, 2)).astype(np.float32)
    rps, mps = make_params(init_arrays(shapes=[(3, 2), (2,)]))
    for lib, ps in ((real, rps), (mt, mps)):
        opt = lib.optim.SGD(ps, lr=0.05, momentum=0.9)
        for _ in range(5):
            opt.zero_grad()
            loss = ((lib.tensor(x) @ ps[0] + ps[1] - lib.tensor(y)) ** 2).mean()
            loss.backward()
            opt.step()
    np.testing.assert_allclose(to_np(mps[0]), to_np(rps[0]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_np(mps[1]), to_np(rps[1]), rtol=1e-5, atol=1e-6)


STATE_CASES = [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
               ("AdamW", dict(lr=0.01)), ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9)),
               ("Adagrad", dict(lr=0.1, lr_decay=0.01)), ("Adadelta", dict(lr=1.0))]


@pytest.mark.parametrize("name,kw", STATE_CASES, ids=[c[0] for c in STATE_CASES])
def test_state_dict_round_trip_continues_like_uninterrupted(name, kw):
    COVERED.update({"torch.optim.Optimizer.state_dict", "torch.optim.Optimizer.load_state_dict"})
    grads = grad_arrays()
    _, ref = make_params(init_arrays())
    ref_opt = getattr(mt.optim, name)(ref, **kw)
    _, a = make_params(init_arrays())
    a_opt = getattr(mt.optim, name)(a, **kw)
    for gs in grads[:4]:
        set_grads(ref, ref, gs)
        ref_opt.step()
        set_grads(a, a, gs)
        a_opt.step()
    sd = copy.deepcopy(a_opt.state_dict())
    assert sorted(sd["state"]) == [0, 1]
    # a fresh model and optimizer restored from the checkpoint
    b = [mt.nn.Parameter(p.detach().clone()) for p in a]
    b_opt = getattr(mt.optim, name)(b, lr=123.0)
    b_opt.load_state_dict(sd)
    assert b_opt.param_groups[0]["lr"] == kw["lr"]
    for gs in grads[4:]:
        set_grads(ref, ref, gs)
        ref_opt.step()
        set_grads(b, b, gs)
        b_opt.step()
    for r, m in zip(ref, b):
        np.testing.assert_array_equal(to_np(m), to_np(r))


@pytest.mark.parametrize("name,kw", STATE_CASES, ids=[c[0] for c in STATE_CASES])
def test_loads_real_torch_state_dict_and_continues_in_lockstep(name, kw):
    grads = grad_arrays()
    rps, _ = make_params(init_arrays())
    ropt = getattr(real.optim, name)(rps, foreach=False, **kw)
    for gs in grads[:4]:
        for rp, g in zip(rps, gs):
            rp.grad = real.tensor(g)
        ropt.step()
    rsd = ropt.state_dict()
    mps = [mt.nn.Parameter(mt.tensor(to_np(rp))) for rp in rps]
    mopt = getattr(mt.optim, name)(mps, lr=7.0)
    mopt.load_state_dict(torch_state_dict_to_msnb(rsd))
    assert_state_equal(ropt, mopt, "after load")
    msd = mopt.state_dict()
    assert msd["param_groups"] == rsd["param_groups"]
    assert sorted(msd["state"]) == sorted(rsd["state"])
    for gs in grads[4:]:
        set_grads(rps, mps, gs)
        ropt.step()
        mopt.step()
        assert_params_equal(rps, mps)
        assert_state_equal(ropt, mopt)


def test_state_dict_format_matches_torch():
    rps, mps = make_params(init_arrays())
    ropt = real.optim.Adam([{"params": rps[:1]}, {"params": rps[1:], "lr": 0.5}], lr=0.01)
    mopt = mt.optim.Adam([{"params": mps[:1]}, {"params": mps[1:], "lr": 0.5}], lr=0.01)
    set_grads(rps, mps, grad_arrays(steps=1)[0])
    ropt.step()
    mopt.step()
    rsd, msd = ropt.state_dict(), mopt.state_dict()
    assert msd["param_groups"] == rsd["param_groups"]
    assert msd["state"].keys() == rsd["state"].keys()
    for k in rsd["state"]:
        assert msd["state"][k].keys() == rsd["state"][k].keys()
        assert msd["state"][k]["step"].shape == () and float(msd["state"][k]["step"]) == 1.0
    # live references, as in PyTorch
    assert msd["state"][0] is mopt.state[mps[0]]


def test_load_state_dict_checks_group_sizes():
    _, mps = make_params(init_arrays())
    opt = mt.optim.SGD(mps, lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0], "lr": 0.1}]})


def test_step_closure_and_hooks():
    rps, mps = make_params(init_arrays(shapes=[(3,)]))
    seen = []
    mopt = mt.optim.SGD(mps, lr=0.1)
    h = mopt.register_step_post_hook(lambda opt, a, k: seen.append(float(mps[0].detach().sum())))

    def closure():
        mopt.zero_grad()
        loss = (mps[0] ** 2).sum()
        loss.backward()
        return loss

    loss = mopt.step(closure)
    assert abs(float(loss) - float((init_arrays(shapes=[(3,)])[0] ** 2).sum())) < 1e-5
    np.testing.assert_allclose(to_np(mps[0]), init_arrays(shapes=[(3,)])[0] * 0.8, rtol=1e-6)
    h.remove()
    mopt.step(closure)
    assert len(seen) == 1


def _quadratic(lib, p, a, b):
    return ((lib.tensor(a) @ p - lib.tensor(b)) ** 2).sum()


def _rosenbrock(lib, p, *_):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


@pytest.mark.parametrize("fn,line_search", [(_quadratic, None), (_rosenbrock, None), (_rosenbrock, "strong_wolfe"),
                                             (_quadratic, "strong_wolfe")])
def test_lbfgs_matches_torch(fn, line_search):
    COVERED.add("torch.optim.LBFGS")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    # Rosenbrock's valley is ill-conditioned enough that float32 ulps steer the
    # iterates apart after a few steps; in float64 the algorithms must agree
    x0 = np.array([-1.2, 1.0, 0.5], np.float32) if fn is _quadratic else np.array([-1.2, 1.0], np.float64)
    results = {}
    for lib in (real, mt):
        p = lib.nn.Parameter(lib.tensor(x0))
        opt = lib.optim.LBFGS([p], lr=1, max_iter=6, history_size=4, line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = fn(lib, p, a, b)
            loss.backward()
            return loss

        traj = []
        for _ in range(2):
            loss = opt.step(closure)
            traj.append((float(loss.detach()), to_np(p).copy()))
        results[lib] = (traj, opt.state[opt.param_groups[0]["params"][0]])
    (rt, rstate), (mtraj, mstate) = results[real], results[mt]
    for (rl, rp), (ml, mp) in zip(rt, mtraj):
        assert abs(rl - ml) <= 1e-4 * max(1.0, abs(rl))
        np.testing.assert_allclose(mp, rp, rtol=1e-4, atol=1e-5)
    assert mstate["func_evals"] == rstate["func_evals"] and mstate["n_iter"] == rstate["n_iter"]


def test_lbfgs_rejects_param_groups_and_unknown_line_search():
    _, mps = make_params(init_arrays())
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        mt.optim.LBFGS([{"params": mps[:1]}, {"params": mps[1:]}])
    opt = mt.optim.LBFGS(mps[:1], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = (mps[0] ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_unsupported_flags_fail_loudly():
    _, mps = make_params(init_arrays())
    with pytest.raises(NotImplementedError, match="fused"):
        mt.optim.Adam(mps, fused=True)
    with pytest.raises(NotImplementedError, match="capturable"):
        mt.optim.RMSprop(mps, capturable=True)
    with pytest.raises(AttributeError, match="not supported by msnb yet"):
        mt.optim.SparseAdam  # noqa: B018
