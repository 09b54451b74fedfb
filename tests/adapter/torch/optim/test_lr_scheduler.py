"""Every scheduler's learning-rate (and momentum) sequence equals real PyTorch's."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

from ..harness import COVERED

STEPS = 30


def _optimizer(lib, kind):
    ps = [lib.nn.Parameter(lib.tensor(np.ones(2, np.float32))), lib.nn.Parameter(lib.tensor(np.ones(3, np.float32)))]
    groups = [{"params": ps[:1]}, {"params": ps[1:], "lr": 0.05}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _trace(lib, make, kind="sgd", steps=STEPS, metrics=None):
    """(lr per group, momentum/beta1 per group, get_last_lr) after construction and each step."""
    opt = _optimizer(lib, kind)
    sched = make(lib.optim.lr_scheduler, opt)

    def snap():
        mom = [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]
        return [g["lr"] for g in opt.param_groups], mom, list(sched.get_last_lr())

    out = [snap()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(steps):
            opt.step()
            if metrics is None:
                sched.step()
            else:
                sched.step(metrics[i])
            out.append(snap())
    return out, sched


SCHEDULERS = {
    "StepLR": (lambda S, o: S.StepLR(o, step_size=7, gamma=0.5), "sgd"),
    "MultiStepLR": (lambda S, o: S.MultiStepLR(o, milestones=[5, 12, 12, 20], gamma=0.3), "sgd"),
    "ExponentialLR": (lambda S, o: S.ExponentialLR(o, gamma=0.9), "sgd"),
    "CosineAnnealingLR": (lambda S, o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001), "sgd"),
    "LambdaLR": (lambda S, o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)]), "sgd"),
    "MultiplicativeLR": (lambda S, o: S.MultiplicativeLR(o, lambda e: 0.97), "sgd"),
    "ConstantLR": (lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=4), "sgd"),
    "LinearLR": (lambda S, o: S.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=8), "sgd"),
    "PolynomialLR": (lambda S, o: S.PolynomialLR(o, total_iters=20, power=2.0), "sgd"),
    "CosineAnnealingWarmRestarts": (lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.01),
                                    "sgd"),
    "CyclicLR-triangular2": (lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4,
                                                     step_size_down=3, mode="triangular2"), "sgd"),
    "CyclicLR-exp_range-adam": (lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5,
                                                        mode="exp_range", gamma=0.97), "adam"),
    "OneCycleLR-cos": (lambda S, o: S.OneCycleLR(o, max_lr=[0.1, 0.2], total_steps=STEPS + 1), "sgd"),
    "OneCycleLR-linear-three_phase-adam": (lambda S, o: S.OneCycleLR(o, max_lr=0.3, epochs=4, steps_per_epoch=8,
                                                                     anneal_strategy="linear", three_phase=True,
                                                                     pct_start=0.25), "adam"),
    "OneCycleLR-no-momentum": (lambda S, o: S.OneCycleLR(o, max_lr=0.1, total_steps=STEPS + 1,
                                                         cycle_momentum=False, div_factor=10.0), "sgd"),
    "SequentialLR": (lambda S, o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=5),
                                                     S.ExponentialLR(o, gamma=0.9)], milestones=[5]), "sgd"),
    "SequentialLR-3": (lambda S, o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=3),
                                                       S.CosineAnnealingLR(o, T_max=8),
                                                       S.StepLR(o, step_size=3, gamma=0.5)], milestones=[4, 15]),
                       "sgd"),
    "ChainedScheduler": (lambda S, o: S.ChainedScheduler([S.ConstantLR(o, factor=0.2, total_iters=6),
                                                          S.ExponentialLR(o, gamma=0.95)]), "sgd"),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence_equals_torch(name):
    make, kind = SCHEDULERS[name]
    COVERED.add("torch.optim.lr_scheduler." + name.split("-")[0])
    r, _ = _trace(real, make, kind)
    m, _ = _trace(mt, make, kind)
    for i, (rs, ms_) in enumerate(zip(r, m)):
        for rv, mv in zip(rs, ms_):
            np.testing.assert_allclose(mv, rv, rtol=1e-12, atol=0, err_msg=f"{name} step {i}")


METRICS = [1.0, 0.9, 0.95, 0.95, 0.94, 0.96, 0.97, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49, 0.4, 0.4, 0.4, 0.4, 0.4,
           0.4, 0.41, 0.42, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]


@pytest.mark.parametrize("kw", [dict(mode="min", factor=0.5, patience=2, threshold=0.01, cooldown=1,
                                     min_lr=[0.01, 0.004]),
                                dict(mode="max", factor=0.3, patience=1, threshold=0.02, threshold_mode="abs",
                                     min_lr=0.002),
                                dict(mode="min", patience=0, threshold_mode="abs", cooldown=3, eps=0.02)])
def test_reduce_lr_on_plateau_equals_torch(kw):
    COVERED.add("torch.optim.lr_scheduler.ReduceLROnPlateau")

    def make(S, o):
        return S.ReduceLROnPlateau(o, **kw)

    r, rs = _trace(real, make, metrics=METRICS)
    m, ms_ = _trace(mt, make, metrics=METRICS)
    assert [x[0] for x in m] == [x[0] for x in r]
    assert [x[2] for x in m] == [x[2] for x in r]
    assert (ms_.best, ms_.num_bad_epochs, ms_.cooldown_counter, ms_.last_epoch) == \
        (rs.best, rs.num_bad_epochs, rs.cooldown_counter, rs.last_epoch)
    # the schedule really reduced something
    assert r[-1][0] != r[0][0] or kw.get("eps") == 0.02


def test_reduce_lr_on_plateau_accepts_tensor_metric_and_checks_args():
    opt = _optimizer(mt, "sgd")
    sched = mt.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    sched.step(mt.tensor(1.0))
    sched.step(mt.tensor(2.0))
    assert sched.get_last_lr() == pytest.approx([0.01, 0.005], rel=1e-12)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        mt.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        mt.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="avg")


def test_scheduler_state_dict_round_trip_and_last_epoch():
    COVERED.update({"torch.optim.lr_scheduler.LRScheduler", "torch.optim.lr_scheduler._LRScheduler"})
    S = mt.optim.lr_scheduler
    opt = _optimizer(mt, "sgd")
    sched = S.CosineAnnealingLR(opt, T_max=12, eta_min=0.001)
    assert isinstance(sched, S.LRScheduler) and issubclass(S.CosineAnnealingLR, S._LRScheduler) is False
    assert issubclass(S._LRScheduler, S.LRScheduler)
    for _ in range(7):
        opt.step()
        sched.step()
    assert sched.last_epoch == 7
    sd = copy.deepcopy(sched.state_dict())
    osd = copy.deepcopy(opt.state_dict())
    assert "optimizer" not in sd and sd["last_epoch"] == 7
    tail = []
    for _ in range(8):
        opt.step()
        sched.step()
        tail.append(sched.get_last_lr())
    opt2 = _optimizer(mt, "sgd")
    sched2 = S.CosineAnnealingLR(opt2, T_max=12, eta_min=0.001)
    sched2.load_state_dict(sd)
    opt2.load_state_dict(osd)
    tail2 = []
    for _ in range(8):
        opt2.step()
        sched2.step()
        tail2.append(sched2.get_last_lr())
    assert tail2 == tail


def test_scheduler_state_dict_matches_torch_keys():
    for lib in (real, mt):
        opt = _optimizer(lib, "sgd")
        s = lib.optim.lr_scheduler.StepLR(opt, step_size=3)
        for _ in range(4):
            opt.step()
            s.step()
        if lib is real:
            rsd = s.state_dict()
        else:
            msd = s.state_dict()
    assert msd == rsd


def test_resume_requires_initial_lr_and_warns_on_order():
    S = mt.optim.lr_scheduler
    opt = _optimizer(mt, "sgd")
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(opt, step_size=2, last_epoch=3)
    sched = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.StepLR(object(), step_size=2)


def test_one_cycle_raises_past_total_steps():
    opt = _optimizer(mt, "sgd")
    sched = mt.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
    for _ in range(3):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        opt.step()
        sched.step()
