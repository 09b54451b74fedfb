"""The count families (Multinomial, Binomial, Poisson, Geometric) and the
heavy-tailed / derived ones (Cauchy, HalfCauchy, HalfNormal, LogNormal,
Gumbel, Chi2, StudentT) against real torch 2.13: log_prob, cdf/icdf, moments,
entropy, shapes, and PyTorch's draws after the same seed where msnb replays
PyTorch's sampler (d2l's probability chapter samples a Multinomial)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt



rng = np.random.default_rng(7)
P6 = np.full(6, 1 / 6, np.float32)
PROBS = (rng.random((2, 4)) + 0.1).astype(np.float32)
PROBS /= PROBS.sum(-1, keepdims=True)
P = np.array([0.1, 0.5, 0.9, 0.3], np.float32)
LOC = rng.standard_normal(4).astype(np.float32)
SCALE = (rng.random(4) + 0.5).astype(np.float32)
V = rng.standard_normal((3, 4)).astype(np.float32)
POS = (rng.random((3, 4)) * 3 + 0.1).astype(np.float32)
U = (rng.random((3, 4)) * 0.98 + 0.01).astype(np.float32)
COUNTS = np.array([[1, 0, 2, 0], [0, 3, 0, 0], [1, 1, 1, 0]], np.float32)
K = np.array([[0, 1, 3, 5], [2, 2, 0, 1], [5, 4, 1, 0]], np.float32)
DF = np.array([0.8, 1.5, 3.0, 7.0], np.float32)

T = lambda lib, a: lib.tensor(a)  # noqa: E731

# (id, make(lib, D), value(lib) or None, what to compare)
CASES = [
    ("multinomial", lambda t, D: D.Multinomial(3, T(t, PROBS)), lambda t: T(t, COUNTS[:2]),
     ("log_prob", "mean", "variance", "entropy")),
    ("multinomial_logits", lambda t, D: D.Multinomial(3, logits=T(t, np.log(PROBS))), lambda t: T(t, COUNTS[:2]),
     ("log_prob", "probs")),
    ("binomial", lambda t, D: D.Binomial(5, T(t, P)), lambda t: T(t, K), ("log_prob", "mean", "variance", "mode",
                                                                           "entropy")),
    ("binomial_logits", lambda t, D: D.Binomial(T(t, np.array([5.0, 6, 7, 8], np.float32)), logits=T(t, LOC)),
     lambda t: T(t, K), ("log_prob", "probs", "mean")),
    ("binomial_edges", lambda t, D: D.Binomial(5, T(t, np.array([0.0, 1.0, 0.5, 0.0], np.float32))),
     lambda t: T(t, np.array([[0, 5, 2, 0]], np.float32)), ("log_prob",)),
    ("poisson", lambda t, D: D.Poisson(T(t, SCALE * 3)), lambda t: T(t, K), ("log_prob", "mean", "variance", "mode")),
    ("geometric", lambda t, D: D.Geometric(T(t, P)), lambda t: T(t, K), ("log_prob", "mean", "variance", "entropy")),
    ("geometric_logits", lambda t, D: D.Geometric(logits=T(t, LOC)), lambda t: T(t, K), ("log_prob", "probs")),
    ("cauchy", lambda t, D: D.Cauchy(T(t, LOC), T(t, SCALE)), lambda t: T(t, V),
     ("log_prob", "cdf", "entropy", "mean", "variance", "mode")),
    ("half_cauchy", lambda t, D: D.HalfCauchy(T(t, SCALE)), lambda t: T(t, POS), ("log_prob", "cdf", "entropy")),
    ("half_normal", lambda t, D: D.HalfNormal(T(t, SCALE)), lambda t: T(t, POS),
     ("log_prob", "cdf", "entropy", "mean", "variance")),
    ("log_normal", lambda t, D: D.LogNormal(T(t, LOC), T(t, SCALE)), lambda t: T(t, POS),
     ("log_prob", "cdf", "entropy", "mean", "variance", "mode")),
    ("gumbel", lambda t, D: D.Gumbel(T(t, LOC), T(t, SCALE)), lambda t: T(t, V),
     ("log_prob", "cdf", "entropy", "mean", "variance", "stddev", "mode")),
    ("chi2", lambda t, D: D.Chi2(T(t, DF * 2)), lambda t: T(t, POS), ("log_prob", "mean", "variance", "df")),
    ("student_t", lambda t, D: D.StudentT(T(t, DF), T(t, LOC), T(t, SCALE)), lambda t: T(t, V),
     ("log_prob", "entropy", "mean", "variance")),
    ("student_t_scalar", lambda t, D: D.StudentT(4.0), lambda t: T(t, V), ("log_prob", "entropy")),
]


def _get(dist, what, value):
    if what in ("log_prob", "cdf"):
        return getattr(dist, what)(value)
    return dist.entropy() if what == "entropy" else getattr(dist, what)


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


@pytest.mark.parametrize("make,value,whats", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_family_matches_torch(make, value, whats):
    dm, dr = make(mt, mt.distributions), make(real, real.distributions)
    assert tuple(dm.batch_shape) == tuple(dr.batch_shape) and tuple(dm.event_shape) == tuple(dr.event_shape)
    for what in whats:
        a, b = _get(dm, what, value(mt)), _get(dr, what, value(real))
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype), what
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-4, atol=1e-5, err_msg=what)
    for shape in ((), (5,), (2, 3)):
        s = dm.sample(shape)
        assert tuple(s.shape) == tuple(dr.sample(shape).shape) and not s.requires_grad, shape


@pytest.mark.parametrize("make", [
    lambda t, D: D.Cauchy(T(t, LOC), T(t, SCALE)), lambda t, D: D.HalfNormal(T(t, SCALE)),
    lambda t, D: D.LogNormal(T(t, LOC), T(t, SCALE)), lambda t, D: D.Gumbel(T(t, LOC), T(t, SCALE)),
], ids=["cauchy", "half_normal", "log_normal", "gumbel"])
def test_icdf_inverts_cdf_as_torch(make):
    a = make(mt, mt.distributions).icdf(mt.tensor(U))
    b = make(real, real.distributions).icdf(real.tensor(U))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda t, D: D.Multinomial(10, t.tensor(P6)), lambda t, D: D.Multinomial(4, t.tensor(PROBS)),
    lambda t, D: D.Geometric(t.tensor(P)), lambda t, D: D.Poisson(t.tensor(SCALE * 3)),
    lambda t, D: D.Cauchy(t.tensor(LOC), t.tensor(SCALE)), lambda t, D: D.HalfCauchy(t.tensor(SCALE)),
    lambda t, D: D.HalfNormal(t.tensor(SCALE)), lambda t, D: D.LogNormal(t.tensor(LOC), t.tensor(SCALE)),
    lambda t, D: D.Gumbel(t.tensor(LOC), t.tensor(SCALE)),
], ids=["multinomial_die", "multinomial_batch", "geometric", "poisson", "cauchy", "half_cauchy", "half_normal",
        "log_normal", "gumbel"])
def test_seeded_draws_are_pytorchs(make):
    """msnb replays PyTorch's samplers these families use: the same seed gives the same draws."""
    mt.manual_seed(11)
    a = make(mt, mt.distributions).sample((3, 2))
    real.manual_seed(11)
    b = make(real, real.distributions).sample((3, 2))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_binomial_and_chi2_draws_are_seeded_and_follow_the_law():
    """Their samplers are numpy's (not PyTorch's streams): reproducible after a seed, right moments."""
    draws = []
    for _ in range(2):
        mt.manual_seed(3)
        draws.append(mt.distributions.Binomial(10, mt.tensor(0.3)).sample((4000,)).numpy())
    np.testing.assert_array_equal(*draws)
    assert abs(draws[0].mean() - 3.0) < 0.1 and set(np.unique(draws[0])) <= set(range(11))
    s = mt.distributions.Chi2(mt.tensor(4.0)).sample((4000,)).numpy()
    assert abs(s.mean() - 4.0) < 0.2 and (s > 0).all()


def test_reparameterised_gradients_match_torch():
    """rsample of the location-scale families carries d/dloc and d/dscale as PyTorch's does."""
    for name in ("Cauchy", "LogNormal", "Gumbel"):
        grads = []
        for lib in (mt, real):
            lib.manual_seed(5)
            loc = lib.tensor(LOC, requires_grad=True)
            scale = lib.tensor(SCALE, requires_grad=True)
            getattr(lib.distributions, name)(loc, scale).rsample((3,)).sum().backward()
            grads.append((loc.grad.numpy(), scale.grad.numpy()))
        for a, b in zip(*grads):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=name)


def test_submodules_hold_their_family():
    """``from torch.distributions.multinomial import Multinomial`` (d2l) resolves in msnb's layout."""
    import importlib
    for mod, cls in (("multinomial", "Multinomial"), ("binomial", "Binomial"), ("categorical", "Categorical"),
                     ("studentT", "StudentT"), ("half_normal", "HalfNormal"), ("bernoulli", "Bernoulli")):
        assert getattr(importlib.import_module(f"msnb.adapter.torch.distributions.{mod}"), cls) is \
            getattr(mt.distributions, cls)
        assert hasattr(importlib.import_module(f"torch.distributions.{mod}"), cls)


@pytest.mark.parametrize("make", [
    lambda t, D: D.Geometric(t.tensor([0.0, 0.5])),
    lambda t, D: D.Binomial(5, t.tensor([1.5])),
    lambda t, D: D.Poisson(t.tensor([-1.0])),
    lambda t, D: D.Cauchy(t.tensor([0.0]), t.tensor([-1.0])),
    lambda t, D: D.StudentT(t.tensor([-1.0])),
    lambda t, D: D.HalfNormal(t.tensor([1.0])).log_prob(t.tensor([-1.0])),
    lambda t, D: D.Multinomial(3, t.tensor([0.2, 0.8])).log_prob(t.tensor([1.0, 1.0, 1.0])),
], ids=["geometric_zero_probs", "binomial_probs_gt_1", "poisson_negative", "cauchy_negative_scale",
        "student_t_negative_df", "half_normal_negative_value", "multinomial_bad_value_shape"])
def test_invalid_arguments_raise_like_torch(make):
    with pytest.raises(ValueError):
        make(real, real.distributions)
    with pytest.raises(ValueError):
        make(mt, mt.distributions)


def test_inhomogeneous_total_count_is_refused_as_torch():
    for lib in (real, mt):
        with pytest.raises(NotImplementedError):
            lib.distributions.Multinomial(lib.tensor(3), lib.tensor([0.2, 0.8]))
    assert math.isinf(float(mt.distributions.HalfCauchy(mt.tensor(1.0)).mean))
