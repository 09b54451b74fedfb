"""torch.distributions against real torch 2.13: log_prob, entropy, moments and
cdf on the same parameters and values; sample shapes and reparameterised
gradients; argument validation raising PyTorch's ValueError; KL closed forms."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


rng = np.random.default_rng(3)
LOC = rng.standard_normal(4).astype(np.float32)
SCALE = (rng.random(4) + 0.5).astype(np.float32)
V = rng.standard_normal((3, 4)).astype(np.float32)
P = np.array([0.1, 0.5, 0.9, 0.3], np.float32)
PROBS = rng.random((2, 5)).astype(np.float32) + 0.1
A = rng.standard_normal((3, 3)).astype(np.float32)
COV = (A @ A.T + 3 * np.eye(3)).astype(np.float32)
CONC = (rng.random((2, 3)) + 0.5).astype(np.float32)
POS = (rng.random((3, 4)) + 0.1).astype(np.float32)


def T(lib, a):
    return lib.tensor(a)


# (id, make(lib, D) -> distribution, value(lib) -> value for log_prob/cdf or None, what to compare)
CASES = [
    ("normal", lambda t, D: D.Normal(T(t, LOC), T(t, SCALE)), lambda t: T(t, V),
     ("log_prob", "entropy", "mean", "variance", "stddev", "cdf")),
    ("normal_scalar", lambda t, D: D.Normal(0.0, 2.0), lambda t: T(t, V), ("log_prob", "entropy", "cdf")),
    ("laplace", lambda t, D: D.Laplace(T(t, LOC), T(t, SCALE)), lambda t: T(t, V),
     ("log_prob", "entropy", "mean", "variance", "cdf")),
    ("exponential", lambda t, D: D.Exponential(T(t, SCALE)), lambda t: T(t, POS),
     ("log_prob", "entropy", "mean", "variance", "cdf")),
    ("uniform", lambda t, D: D.Uniform(T(t, LOC - 3), T(t, LOC + 3)), lambda t: T(t, np.clip(V, LOC - 2.9, LOC + 2.9)),
     ("log_prob", "entropy", "mean", "variance", "cdf")),
    ("bernoulli_probs", lambda t, D: D.Bernoulli(probs=T(t, P)), lambda t: T(t, (V > 0).astype(np.float32)),
     ("log_prob", "entropy", "mean", "variance")),
    ("bernoulli_logits", lambda t, D: D.Bernoulli(logits=T(t, LOC)), lambda t: T(t, (V > 0).astype(np.float32)),
     ("log_prob", "entropy", "probs")),
    ("categorical_probs", lambda t, D: D.Categorical(probs=T(t, PROBS)),
     lambda t: t.tensor(np.array([[0, 4], [2, 1], [3, 3]], np.int64)), ("log_prob", "entropy", "probs", "logits")),
    ("categorical_logits", lambda t, D: D.Categorical(logits=T(t, PROBS)),
     lambda t: t.tensor(np.array([1, 3], np.int64)), ("log_prob", "entropy", "probs")),
    ("one_hot", lambda t, D: D.OneHotCategorical(probs=T(t, PROBS)),
     lambda t: t.nn.functional.one_hot(t.tensor(np.array([1, 3], np.int64)), 5).float(), ("log_prob", "entropy")),
    ("mvn_cov", lambda t, D: D.MultivariateNormal(T(t, LOC[:3]), covariance_matrix=T(t, COV)),
     lambda t: T(t, V[:, :3]), ("log_prob", "entropy", "mean", "variance", "scale_tril")),
    ("mvn_tril", lambda t, D: D.MultivariateNormal(T(t, LOC[:3]), scale_tril=T(t, np.linalg.cholesky(COV))),
     lambda t: T(t, V[:, :3]), ("log_prob", "entropy", "covariance_matrix")),
    ("gamma", lambda t, D: D.Gamma(T(t, SCALE + 1), T(t, SCALE)), lambda t: T(t, POS),
     ("log_prob", "entropy", "mean", "variance")),
    ("dirichlet", lambda t, D: D.Dirichlet(T(t, CONC)), lambda t: T(t, CONC / CONC.sum(-1, keepdims=True)),
     ("log_prob", "entropy", "mean", "variance")),
    ("beta", lambda t, D: D.Beta(T(t, SCALE), T(t, SCALE + 1)), lambda t: T(t, P),
     ("log_prob", "entropy", "mean", "variance")),
    ("independent_normal", lambda t, D: D.Independent(D.Normal(T(t, LOC), T(t, SCALE)), 1), lambda t: T(t, V),
     ("log_prob", "entropy", "mean")),
]


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _get(dist, what, value):
    if what in ("log_prob", "cdf"):
        return getattr(dist, what)(value)
    if what == "entropy":
        return dist.entropy()
    return getattr(dist, what)


@pytest.mark.parametrize("make,value,whats", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_distribution_matches_torch(make, value, whats):
    dm, dr = make(mt, mt.distributions), make(real, real.distributions)
    assert tuple(dm.batch_shape) == tuple(dr.batch_shape)
    assert tuple(dm.event_shape) == tuple(dr.event_shape)
    vm, vr = value(mt), value(real)
    for what in whats:
        a, b = _get(dm, what, vm), _get(dr, what, vr)
        assert tuple(a.shape) == tuple(b.shape), what
        assert str(a.dtype) == str(b.dtype), what
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-4, atol=1e-5, err_msg=what)
    for shape in ((), (5,), (2, 3)):
        s = dm.sample(shape)
        assert tuple(s.shape) == tuple(dr.sample(shape).shape), shape
        assert not s.requires_grad


def test_rsample_is_reparameterised():
    """d/dloc sum(loc + eps*scale) = n, d/dscale = sum(eps): gradients flow as in PyTorch."""
    loc = mt.tensor(LOC, requires_grad=True)
    scale = mt.tensor(SCALE, requires_grad=True)
    x = mt.distributions.Normal(loc, scale).rsample((6,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), np.full(4, 6.0))
    eps = (x.detach().numpy() - LOC) / SCALE
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0), rtol=1e-4)


def test_score_function_gradient_reaches_the_logits():
    """REINFORCE: -log_prob(action) * reward back-propagates into the policy's logits."""
    logits = mt.tensor(PROBS[0], requires_grad=True)
    rl = real.tensor(PROBS[0], requires_grad=True)
    for lib, lg in ((mt, logits), (real, rl)):
        d = lib.distributions.Categorical(logits=lg)
        (-d.log_prob(lib.tensor(2)) * 1.5).backward()
    np.testing.assert_allclose(logits.grad.numpy(), rl.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_categorical_samples_follow_probs():
    mt.manual_seed(0)
    d = mt.distributions.Categorical(probs=mt.tensor([0.7, 0.2, 0.1]))
    counts = np.bincount(d.sample((4000,)).numpy(), minlength=3) / 4000
    np.testing.assert_allclose(counts, [0.7, 0.2, 0.1], atol=0.03)


def test_normal_samples_follow_moments():
    mt.manual_seed(0)
    s = mt.distributions.Normal(mt.tensor(2.0), mt.tensor(0.5)).sample((20000,)).numpy()
    assert abs(s.mean() - 2.0) < 0.02 and abs(s.std() - 0.5) < 0.02


def test_gamma_family_draws_are_seeded_and_in_support():
    mt.manual_seed(5)
    a = mt.distributions.Dirichlet(mt.tensor(CONC)).sample((3,))
    mt.manual_seed(5)
    b = mt.distributions.Dirichlet(mt.tensor(CONC)).sample((3,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(a.numpy().sum(-1), 1.0, rtol=1e-5)
    with pytest.raises(NotImplementedError, match="rsample.*not supported by msnb yet"):
        mt.distributions.Beta(1.0, 2.0).rsample()


@pytest.mark.parametrize("make", [
    lambda t, D: D.Normal(t.tensor([0.0]), t.tensor([-1.0])),
    lambda t, D: D.Bernoulli(probs=t.tensor([1.5])),
    lambda t, D: D.Categorical(probs=t.tensor(1.0)),
    lambda t, D: D.Bernoulli(probs=t.tensor([0.5]), logits=t.tensor([0.0])),
    lambda t, D: D.Uniform(t.tensor([1.0]), t.tensor([0.0])),
    lambda t, D: D.Normal(t.zeros(4), t.ones(4)).log_prob(t.zeros(3, 5)),
    lambda t, D: D.Exponential(t.tensor([1.0])).log_prob(t.tensor([-1.0])),
], ids=["negative_scale", "probs_gt_1", "categorical_0d", "both_probs_logits", "low_gt_high", "bad_value_shape",
        "value_outside_support"])
def test_invalid_arguments_raise_like_torch(make):
    with pytest.raises(ValueError):
        make(real, real.distributions)
    with pytest.raises(ValueError):
        make(mt, mt.distributions)


@pytest.mark.parametrize("make", [
    lambda t, D: (D.Normal(t.tensor(LOC), t.tensor(SCALE)), D.Normal(t.tensor(LOC[::-1].copy()), t.tensor(SCALE))),
    lambda t, D: (D.Categorical(probs=t.tensor(PROBS)), D.Categorical(probs=t.tensor(PROBS[::-1].copy()))),
    lambda t, D: (D.Bernoulli(probs=t.tensor(P)), D.Bernoulli(probs=t.tensor(P[::-1].copy()))),
    lambda t, D: (D.Exponential(t.tensor(SCALE)), D.Exponential(t.tensor(SCALE + 1))),
    lambda t, D: (D.MultivariateNormal(t.tensor(LOC[:3]), t.tensor(COV)),
                  D.MultivariateNormal(t.tensor(LOC[1:]), t.tensor(COV + np.eye(3, dtype=np.float32)))),
], ids=["normal", "categorical", "bernoulli", "exponential", "mvn"])
def test_kl_divergence_matches_torch(make):
    pm, qm = make(mt, mt.distributions)
    pr, qr = make(real, real.distributions)
    np.testing.assert_allclose(mt.distributions.kl_divergence(pm, qm).numpy(),
                               real.distributions.kl_divergence(pr, qr).numpy(), rtol=1e-4, atol=1e-5)


def test_kl_of_an_unregistered_pair_raises_not_implemented():
    with pytest.raises(NotImplementedError):
        mt.distributions.kl_divergence(mt.distributions.Normal(0.0, 1.0), mt.distributions.Exponential(1.0))
