"""Default initialisation (distribution bounds / std of large layers against
the same layer in real torch), ``torch.nn.init``, gradient clipping and
containers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ..harness import COVERED
from ._modtools import mt, np_of, real


def _stats(t):
    a = np_of(t).astype(np.float64).ravel()
    return a.min(), a.max(), a.mean(), a.std()


def _same_distribution(r, m, uniform):
    """Same std and mean within sampling error; for uniform draws the same
    bound (the extremes of n draws fall short of it by about bound / n)."""
    rmin, rmax, _, rstd = _stats(r)
    mmin, mmax, mmean, mstd = _stats(m)
    n = r.numel()
    assert tuple(r.shape) == tuple(m.shape)
    assert abs(mstd - rstd) <= 6 * rstd / math.sqrt(2 * n), (mstd, rstd, n)
    assert abs(mmean) <= 6 * rstd / math.sqrt(n), (mmean, rstd, n)
    if uniform:
        bound, got = max(abs(rmin), rmax), max(abs(mmin), mmax)
        assert bound * (1 - 20 / n) <= got <= bound * (1 + 20 / n), (got, bound, n)


INIT_LAYERS = [
    ("Linear", lambda t: t.nn.Linear(400, 300), True),
    ("Conv2d", lambda t: t.nn.Conv2d(32, 64, 5), True),
    ("Conv1d", lambda t: t.nn.Conv1d(16, 300, 7), True),
    ("Conv3d", lambda t: t.nn.Conv3d(8, 20, 3), True),
    ("ConvTranspose2d", lambda t: t.nn.ConvTranspose2d(64, 32, 4), True),
    ("Bilinear", lambda t: t.nn.Bilinear(40, 50, 60), True),
    ("LSTM", lambda t: t.nn.LSTM(200, 150), True),
    ("GRU", lambda t: t.nn.GRU(100, 200, bidirectional=True), True),
    ("RNN", lambda t: t.nn.RNN(300, 100), True),
    ("LSTMCell", lambda t: t.nn.LSTMCell(200, 150), True),
    ("Embedding", lambda t: t.nn.Embedding(1000, 64), False),
    ("MultiheadAttention", lambda t: t.nn.MultiheadAttention(128, 8), True),
]


@pytest.mark.parametrize("name,make,uniform", INIT_LAYERS, ids=[c[0] for c in INIT_LAYERS])
def test_default_init_matches_torch_distribution(name, make, uniform):
    real.manual_seed(0)
    r, m = make(real), make(mt)
    mp = dict(m.named_parameters())
    for k, rp in r.named_parameters():
        if rp.numel() < 50:
            continue
        if np.all(np_of(rp) == 0):  # MHA biases start at zero
            assert not np.any(np_of(mp[k])), k
            continue
        _same_distribution(rp, mp[k], uniform)
    COVERED.add(f"torch.nn.{name}")


def test_norm_layers_and_padding_rows_start_like_torch():
    for make in (lambda t: t.nn.BatchNorm2d(7), lambda t: t.nn.LayerNorm(7), lambda t: t.nn.GroupNorm(1, 7),
                 lambda t: t.nn.RMSNorm(7), lambda t: t.nn.PReLU(7)):
        r, m = make(real), make(mt)
        for (k, a), (k2, b) in zip(r.state_dict().items(), m.state_dict().items()):
            assert k == k2
            np.testing.assert_array_equal(np_of(b), np_of(a))
    e = mt.nn.Embedding(10, 4, padding_idx=-2)
    assert e.padding_idx == 8 and not np.any(np_of(e.weight)[8])


INIT_FNS = [
    ("uniform_", lambda t, w: t.nn.init.uniform_(w, -0.3, 0.7), True),
    ("normal_", lambda t, w: t.nn.init.normal_(w, 0.0, 0.2), False),
    ("xavier_uniform_", lambda t, w: t.nn.init.xavier_uniform_(w, gain=2.0), True),
    ("xavier_normal_", lambda t, w: t.nn.init.xavier_normal_(w), False),
    ("kaiming_uniform_", lambda t, w: t.nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"), True),
    ("kaiming_normal_", lambda t, w: t.nn.init.kaiming_normal_(w, a=0.1), False),
    ("trunc_normal_", lambda t, w: t.nn.init.trunc_normal_(w, std=0.5, a=-0.4, b=0.6), True),
]


@pytest.mark.parametrize("name,fn,bounded", INIT_FNS, ids=[c[0] for c in INIT_FNS])
def test_init_functions_match_torch_distribution(name, fn, bounded):
    r, m = real.empty(300, 200, 3), mt.empty(300, 200, 3)
    assert fn(real, r) is r
    assert fn(mt, m) is m
    rmin, rmax, rmean, rstd = _stats(r)
    mmin, mmax, mmean, mstd = _stats(m)
    assert abs(mstd - rstd) <= 0.02 * rstd and abs(mmean - rmean) <= 0.02 * rstd
    if bounded:
        assert rmin - 1e-3 * rstd <= mmin <= rmin + 0.01 * rstd and rmax - 0.01 * rstd <= mmax <= rmax + 1e-3 * rstd
    COVERED.add(f"torch.nn.init.{name}")


def test_deterministic_init_functions():
    for name, fn in [("constant_", lambda t, w: t.nn.init.constant_(w, 0.3)), ("ones_", lambda t, w: t.nn.init.ones_(w)),
                     ("zeros_", lambda t, w: t.nn.init.zeros_(w)), ("eye_", lambda t, w: t.nn.init.eye_(w)),
                     ("dirac_", lambda t, w: t.nn.init.dirac_(w.reshape(4, 2, 3)))]:
        r, m = real.empty(4, 6), mt.empty(4, 6)
        if name == "dirac_":
            r, m = real.empty(4, 2, 3), mt.empty(4, 2, 3)
            real.nn.init.dirac_(r)
            mt.nn.init.dirac_(m)
        else:
            fn(real, r)
            fn(mt, m)
        np.testing.assert_array_equal(np_of(m), np_of(r))
        COVERED.add(f"torch.nn.init.{name}")
    for nl, p in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                  ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert math.isclose(mt.nn.init.calculate_gain(nl, p), real.nn.init.calculate_gain(nl, p))
    COVERED.add("torch.nn.init.calculate_gain")
    w = mt.empty(30, 50)
    mt.nn.init.orthogonal_(w, gain=2.0)
    a = np_of(w)
    np.testing.assert_allclose(a @ a.T, 4 * np.eye(30), atol=1e-4)
    COVERED.add("torch.nn.init.orthogonal_")
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        mt.nn.init.xavier_uniform_(mt.empty(5))


def _with_grads(lib, grads):
    ps = []
    for g in grads:
        p = lib.nn.Parameter(lib.zeros(*g.shape))
        p.grad = lib.tensor(g)
        ps.append(p)
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3])
def test_clip_grad_norm_matches_torch(norm_type):
    rng = np.random.default_rng(3)
    grads = [rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    rp, mp = _with_grads(real, grads), _with_grads(mt, grads)
    rn = real.nn.utils.clip_grad_norm_(rp, 1.5, norm_type)
    mn = mt.nn.utils.clip_grad_norm_(mp, 1.5, norm_type)
    np.testing.assert_allclose(np_of(mn), np_of(rn), rtol=1e-5)
    for a, b in zip(rp, mp):
        np.testing.assert_allclose(np_of(b.grad), np_of(a.grad), rtol=1e-5, atol=1e-7)
    COVERED.add("torch.nn.utils.clip_grad_norm_")


def test_clip_grad_value_and_vectors_match_torch():
    rng = np.random.default_rng(4)
    grads = [rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    rp, mp = _with_grads(real, grads), _with_grads(mt, grads)
    real.nn.utils.clip_grad_value_(rp, 0.4)
    mt.nn.utils.clip_grad_value_(mp, 0.4)
    for a, b in zip(rp, mp):
        np.testing.assert_array_equal(np_of(b.grad), np_of(a.grad))
    with pytest.raises(RuntimeError, match="non-finite"):
        bad = _with_grads(mt, [np.array([np.inf], np.float32)])
        mt.nn.utils.clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    vec = mt.nn.utils.parameters_to_vector(mp)
    assert tuple(vec.shape) == (17,)
    mt.nn.utils.vector_to_parameters(mt.arange(17.0), mp)
    np.testing.assert_array_equal(np_of(mp[1]), np.arange(12, 17, dtype=np.float32))
    COVERED.update({"torch.nn.utils.clip_grad_value_", "torch.nn.utils.parameters_to_vector",
                    "torch.nn.utils.vector_to_parameters"})


def test_containers_keys_repr_and_indexing_match_torch():
    def build(t):
        return t.nn.ModuleDict({"enc": t.nn.Sequential(t.nn.Linear(3, 4), t.nn.ReLU(), t.nn.Linear(4, 4)),
                                "heads": t.nn.ModuleList([t.nn.Linear(4, 2) for _ in range(3)] + [t.nn.Tanh()]),
                                "extra": t.nn.ParameterList([t.nn.Parameter(t.ones(2)), t.nn.Parameter(t.zeros(3))])})
    r, m = build(real), build(mt)
    assert list(r.state_dict()) == list(m.state_dict())
    assert repr(r) == repr(m)
    assert len(m["heads"]) == 4 and isinstance(m["enc"][1], mt.nn.ReLU)
    assert isinstance(m["enc"][1:], mt.nn.Sequential) and len(m["enc"][1:]) == 2
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in r.named_parameters()]
    COVERED.update({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.ParameterList",
                    "torch.nn.Parameter"})
