"""GradScaler against real torch 2.13's ``torch.amp.GradScaler("cpu")``: same
scale sequence, same skipped steps, same unscaled gradients, same errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torch.cuda import amp as cuda_amp

INF, NAN = float("inf"), float("nan")
#: gradient multipliers per iteration: finite steps, an inf, a nan, more finite ones
SCRIPT = [1.0, 1.0, INF, 1.0, 1.0, 1.0, NAN, 1.0, 1.0, 1.0, 1.0, -INF, 1.0, 1.0, 1.0]


def _run(lib, kwargs, explicit_unscale):
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0]))
    q = lib.nn.Parameter(lib.tensor([0.5]))
    opt = lib.optim.SGD([p, q], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **kwargs)
    trace = []
    for k in SCRIPT:
        opt.zero_grad()
        loss = (p * p).sum() * k + (q * 3).sum()
        scaler.scale(loss).backward()
        if explicit_unscale:
            scaler.unscale_(opt)
            grads = p.grad.detach().numpy().copy()
        step = scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(), p.detach().numpy().copy(),
                      q.detach().numpy().copy(), step, grads if explicit_unscale else None))
    return trace, scaler.state_dict()


@pytest.mark.parametrize("kwargs", [dict(growth_interval=3),
                                    dict(init_scale=1000.0, growth_factor=3.0, backoff_factor=0.3,
                                         growth_interval=2)])
@pytest.mark.parametrize("explicit_unscale", [False, True])
def test_scale_sequence_skips_and_params_match_torch(kwargs, explicit_unscale):
    ref, ref_state = _run(real, kwargs, explicit_unscale)
    mine, my_state = _run(mt, kwargs, explicit_unscale)
    assert [t[:2] for t in mine] == [t[:2] for t in ref]  # exact float32 scale arithmetic
    for (_, _, rp, rq, rs, rg), (_, _, mp, mq, ms, mg) in zip(ref, mine):
        np.testing.assert_allclose(mp, rp, rtol=1e-6)
        np.testing.assert_allclose(mq, rq, rtol=1e-6)
        assert ms is rs is None
        if rg is not None:
            np.testing.assert_allclose(mg, rg, rtol=1e-6)
    assert my_state == ref_state


def test_scale_of_iterables_and_bad_outputs():
    s = mt.amp.GradScaler(init_scale=4.0)
    a, b = s.scale([mt.tensor(1.0), (mt.tensor(2.0),)])
    assert a.item() == 4.0 and b[0].item() == 8.0
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        s.scale([1.0])


def test_state_machine_errors_match_torch():
    def errors(lib):
        p = lib.nn.Parameter(lib.tensor([1.0]))
        opt = lib.optim.SGD([p], lr=0.1)
        s = lib.amp.GradScaler("cpu")
        out = []
        s.scale((p * 2).sum()).backward()
        s.unscale_(opt)
        for call in (lambda: s.unscale_(opt), lambda: s.step(opt, closure=lambda: 0)):
            with pytest.raises(RuntimeError) as e:
                call()
            out.append(str(e.value))
        s.step(opt)
        for call in (lambda: s.step(opt), lambda: s.unscale_(opt)):
            with pytest.raises(RuntimeError) as e:
                call()
            out.append(str(e.value))
        s.update()
        with pytest.raises(RuntimeError) as e:
            s.load_state_dict({})
        out.append(str(e.value))
        with pytest.raises(AssertionError) as e:
            s.update()
        out.append(str(e.value))
        return out

    assert errors(mt) == errors(real)


def test_fp16_gradients_are_refused():
    p = mt.nn.Parameter(mt.tensor([1.0]).half())
    opt = mt.optim.SGD([p], lr=0.1)
    s = mt.amp.GradScaler()
    s.scale((p * 2).sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(opt)


def test_disabled_scaler_is_transparent():
    p = mt.nn.Parameter(mt.tensor([1.0]))
    opt = mt.optim.SGD([p], lr=0.5)
    s = mt.amp.GradScaler(enabled=False)
    loss = (p * 2).sum()
    assert s.scale(loss) is loss and not s.is_enabled() and s.get_scale() == 1.0 and s.state_dict() == {}
    loss.backward()
    s.step(opt)
    s.update()
    assert p.item() == 0.0


def test_state_dict_round_trip_and_pickle():
    s = mt.amp.GradScaler(init_scale=8.0, growth_interval=5)
    s.load_state_dict({"scale": 32.0, "growth_factor": 4.0, "backoff_factor": 0.25, "growth_interval": 7,
                       "_growth_tracker": 3})
    assert s.get_scale() == 32.0 and s.get_growth_factor() == 4.0 and s._get_growth_tracker() == 3
    t = pickle.loads(pickle.dumps(s))
    assert t.state_dict() == s.state_dict()
    r = real.amp.GradScaler("cpu")
    r.load_state_dict(s.state_dict())  # real torch accepts msnb's state dict
    assert r.get_scale() == 32.0


def test_cuda_amp_gradscaler_warns_and_stays_enabled():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = cuda_amp.GradScaler(init_scale=2.0)
    assert any("torch.cuda.amp.GradScaler(args...)` is deprecated" in str(x.message) for x in w)
    assert s.is_enabled() and s.get_scale() == 2.0  # "cuda" is MindSpore's device in msnb
