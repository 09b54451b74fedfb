"""Differential tests of ``torch.special`` (and the ``torch.*`` / ``Tensor``
spellings) against real PyTorch: values over wide argument ranges (tails,
negative arguments, zero), dtypes including integer inputs, and gradients
where PyTorch has them; functions PyTorch does not differentiate must not
require grad here either."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(13)
X = np.concatenate([rng.uniform(-5, 5, 40), [0.0, 1e-3, -1e-3, 9.0]])
P01 = np.concatenate([rng.uniform(0.02, 0.98, 30), [0.999, 0.001]])
U11 = np.concatenate([rng.uniform(-0.98, 0.98, 30), [0.9999, -0.9999, 0.0]])
POS = rng.uniform(0.2, 9.0, 30)
NEG = -rng.uniform(0.1, 4.0, 10) - 0.5  # away from the poles
TOL = dict(rtol=1e-4, atol=1e-5)

CASES = []


def sp(*n):
    return registered(*(f"torch.special.{x}" for x in n))


def add(id, names, fn, *arrays, **opts):
    for dt in (np.float32, np.float64):
        CASES.append(case(f"{id}[{np.dtype(dt).name}]", names, fn, *(a.astype(dt) for a in arrays), **{**TOL, **opts}))


add("erf_family", sp("erf", "erfc", "erfcx") + registered("torch.erfc", "torch.Tensor.erfc"),
    lambda t, x: (t.special.erf(x), t.special.erfc(x), t.special.erfcx(x), t.erfc(x), x.erfc()), X)
add("erfinv", sp("erfinv") + registered("torch.erfinv", "torch.Tensor.erfinv"),
    lambda t, u: (t.special.erfinv(u), t.erfinv(u), u.erfinv()), U11)
add("expit_logit", sp("expit", "logit") + registered("torch.logit", "torch.Tensor.logit"),
    lambda t, x, p: (t.special.expit(x), t.special.logit(p), t.special.logit(p, eps=0.1), t.logit(p), p.logit(0.2)),
    X, P01)
add("gamma_family", sp("gammaln", "digamma", "psi", "multigammaln") +
    registered("torch.lgamma", "torch.Tensor.lgamma", "torch.digamma", "torch.Tensor.digamma", "torch.mvlgamma",
               "torch.Tensor.mvlgamma"),
    lambda t, x, n: (t.special.gammaln(x), t.special.gammaln(n), t.special.digamma(x), t.special.psi(n),
                     t.special.multigammaln(x + 1.5, 3), t.lgamma(x), x.lgamma(), t.digamma(x), x.digamma(),
                     t.mvlgamma(x + 1, 2), (x + 1).mvlgamma(2)), POS, NEG)
add("polygamma", sp("polygamma") + registered("torch.polygamma", "torch.Tensor.polygamma"),
    lambda t, x: (t.special.polygamma(1, x), t.special.polygamma(2, x), t.special.polygamma(3, x),
                  t.polygamma(1, x), x.polygamma(2)), POS)
add("bessel_i", sp("i0", "i0e", "i1", "i1e") + registered("torch.i0", "torch.Tensor.i0"),
    lambda t, x: (t.special.i0(x), t.special.i0e(x), t.special.i1(x), t.special.i1e(x), t.i0(x), x.i0()), X)
add("normal", sp("ndtr", "ndtri", "log_ndtr"),
    lambda t, x, p: (t.special.ndtr(x), t.special.ndtri(p), t.special.log_ndtr(x), t.special.log_ndtr(x * 6)), X, P01)
add("xlogy_xlog1py", sp("xlogy", "xlog1py") + registered("torch.xlogy", "torch.xlog1py"),
    lambda t, a, b: (t.special.xlogy(a, b.abs()), t.special.xlog1py(a, b.abs()), t.xlogy(a * 0, b)),
    X[:20], X[20:40])
add("xlog1py_broadcast", sp("xlog1py", "xlogy"),
    lambda t, a, b: (t.special.xlog1py(a, b.abs()), t.special.xlogy(a[:1], b.abs())), X[:20].reshape(4, 5),
    X[20:25].copy())
CASES.append(case("xlogy_nan_and_scalars", sp("xlogy", "xlog1py"),
                  lambda t: (t.special.xlogy(t.tensor([0.0, 0.0, 1.0]), t.tensor([float("nan"), 0.0, 2.0])),
                             t.special.xlogy(2, t.tensor([3.0])), t.special.xlog1py(t.tensor([0.0, 2.0]), 1.5)),
                  kind="behaviour"))
add("entr_sinc", sp("entr", "sinc") + registered("torch.sinc", "torch.Tensor.sinc"),
    lambda t, x: (t.special.entr(x), t.special.sinc(x), t.sinc(x), x.sinc()), X)
add("softmax_family", sp("softmax", "log_softmax", "logsumexp"),
    lambda t, x: (t.special.softmax(x, 0), t.special.log_softmax(x, 0), t.special.log_softmax(x, 0, dtype=t.float64),
                  t.special.logsumexp(x, 0)), X)
add("round_exp_log", sp("round", "exp2", "expm1", "log1p"),
    lambda t, x: (t.special.round(x), t.special.round(x, decimals=2), t.special.exp2(x), t.special.expm1(x),
                  t.special.log1p(x.abs())), X)
add("zeta", sp("zeta"), lambda t, x, q: (t.special.zeta(x + 1.1, q), t.special.zeta(2.0, q)), POS, POS[::-1].copy(),
    grad=False)
add("not_differentiable", sp("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
                             "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                             "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
                             "airy_ai"),
    lambda t, x, p: tuple((y, y.requires_grad) for y in (
        t.special.bessel_j0(x), t.special.bessel_j1(x), t.special.bessel_y0(p), t.special.bessel_y1(p),
        t.special.modified_bessel_i0(x), t.special.modified_bessel_i1(x), t.special.modified_bessel_k0(p),
        t.special.modified_bessel_k1(p), t.special.scaled_modified_bessel_k0(p),
        t.special.scaled_modified_bessel_k1(p), t.special.spherical_bessel_j0(x), t.special.airy_ai(x))),
    X, POS)
add("gammainc", sp("gammainc", "gammaincc"),
    lambda t, a, x: (t.special.gammainc(a.detach(), x), t.special.gammaincc(a.detach(), x)), POS, POS[::-1].copy())
CASES.append(case("int_inputs", sp("erfc", "i0", "gammaln", "digamma", "sinc", "ndtr", "entr"),
                  lambda t: tuple(f(t.arange(1, 5)) for f in (t.special.erfc, t.special.i0, t.special.gammaln,
                                                              t.special.digamma, t.special.sinc, t.special.ndtr,
                                                              t.special.entr)), kind="behaviour"))
for _id, _fn in {"multigammaln_domain": lambda t: t.special.multigammaln(t.tensor([0.5, 0.2]), 3),
                 "polygamma_negative": lambda t: t.special.polygamma(-1, t.ones(2)),
                 "zeta_grad": lambda t: t.special.zeta(t.tensor([2.0], requires_grad=True), t.tensor([1.0])).sum()
                 .backward()}.items():
    CASES.append(case(f"bad_input[{_id}]", (), _fn, kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_special(c):
    run_case(c)
