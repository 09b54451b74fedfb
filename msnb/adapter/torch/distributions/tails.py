"""Heavy-tailed and derived real families: ``Cauchy``, ``HalfCauchy``,
``HalfNormal``, ``LogNormal``, ``Gumbel``, ``Chi2`` and ``StudentT``.

Densities, moments, cdf/icdf and entropies follow PyTorch's formulas.  Each is
written out directly rather than as a ``TransformedDistribution`` (msnb has
none yet), so ``isinstance(d, TransformedDistribution)`` and ``base_dist`` are
missing; draws follow PyTorch's recipes (``cauchy_``, a normal draw, a uniform
draw pushed through the same maps), so with ``torch.manual_seed`` they are
PyTorch's numbers, except ``Chi2`` / ``StudentT``, whose Gamma draws come from
numpy as ``Gamma``'s do.
"""

from __future__ import annotations

import math
import numbers

from . import constraints
from .continuous import Gamma
from .distribution import Distribution, broadcast_all
from .normal import Normal, _LocScale as _RealLocScale

__all__ = ["Cauchy", "HalfCauchy", "HalfNormal", "LogNormal", "Gumbel", "Chi2", "StudentT"]

_EULER = 0.57721566490153286060


def _torch():
    from msnb.adapter import torch
    return torch


def _batch(*params):
    return () if all(isinstance(p, numbers.Number) for p in params) else None


class _LocScale(_RealLocScale):
    """normal.py's location-scale base (PyTorch's constructors), plus the sample check these share."""

    def _check(self, value):
        if self._validate_args:
            self._validate_sample(value)


class Cauchy(_LocScale):
    """msnb implementation of ``torch.distributions.Cauchy``."""

    support = constraints.real
    mode = property(lambda self: self.loc)

    @property
    def mean(self):
        return _torch().full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self):
        return _torch().full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        torch = _torch()
        eps = torch.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        self._check(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        self._check(value)
        return _torch().atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return _torch().tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class _Half(Distribution):
    """The law of ``|X|`` for a zero-centred ``X`` (PyTorch's AbsTransform of a base)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        self.base = self._base(0.0, scale)
        (self.scale,) = broadcast_all(scale)
        batch = _batch(scale)
        super().__init__(self.scale.size() if batch is None else batch, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        return self.base.rsample(sample_shape).abs()

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        lp = self.base.log_prob(value) + math.log(2)
        return torch.where(value >= 0, lp, torch.full_like(lp, -math.inf))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base.cdf(value) - 1

    def icdf(self, prob):
        return self.base.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base.entropy() - math.log(2)

    @property
    def mode(self):
        return _torch().zeros_like(self.scale)


class HalfCauchy(_Half):
    """msnb implementation of ``torch.distributions.HalfCauchy``."""

    _base = Cauchy

    @property
    def mean(self):
        return _torch().full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return _torch().full(self._extended_shape(), math.inf, dtype=self.scale.dtype)


class HalfNormal(_Half):
    """msnb implementation of ``torch.distributions.HalfNormal``."""

    _base = Normal
    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))


class LogNormal(_LocScale):
    """msnb implementation of ``torch.distributions.LogNormal``: ``exp`` of a Normal."""

    support = constraints.positive

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(loc, scale, validate_args=validate_args)
        self._normal = Normal(self.loc, self.scale, validate_args=False)

    mean = property(lambda self: (self.loc + self.scale.pow(2) / 2).exp())
    mode = property(lambda self: (self.loc - self.scale.pow(2)).exp())

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def rsample(self, sample_shape=()):
        return self._normal.rsample(sample_shape).exp()

    def log_prob(self, value):
        self._check(value)
        log_value = value.log()
        return self._normal.log_prob(log_value) - log_value

    def cdf(self, value):
        self._check(value)
        return self._normal.cdf(value.log())

    def icdf(self, value):
        return self._normal.icdf(value).exp()

    def entropy(self):
        return self._normal.entropy() + self.loc


class Gumbel(_LocScale):
    """msnb implementation of ``torch.distributions.Gumbel``."""

    support = constraints.real
    mean = property(lambda self: self.loc + self.scale * _EULER)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def rsample(self, sample_shape=()):
        torch = _torch()
        finfo = torch.finfo(self.loc.dtype)
        shape = self._extended_shape(sample_shape)
        low, high = finfo.tiny, 1 - finfo.eps
        u = low + torch.rand(shape, dtype=self.loc.dtype) * (high - low)
        return self.loc - self.scale * (-(u.log())).log()

    def log_prob(self, value):
        self._check(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    def cdf(self, value):
        self._check(value)
        return (-((self.loc - value) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-(value.log())).log()

    def entropy(self):
        return self.scale.log() + (1 + _EULER)


class Chi2(Gamma):
    """msnb implementation of ``torch.distributions.Chi2``: ``Gamma(df / 2, 1 / 2)``."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df_t,) = broadcast_all(df)
        super().__init__(0.5 * df if isinstance(df, numbers.Number) else 0.5 * df_t, 0.5,
                         validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2


class StudentT(Distribution):
    """msnb implementation of ``torch.distributions.StudentT``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        batch = _batch(df, loc, scale)
        super().__init__(self.df.size() if batch is None else batch, validate_args=validate_args)

    @property
    def mean(self):
        torch = _torch()
        m = self.loc.clone()
        return torch.where(self.df <= 1, torch.full_like(m, math.nan), m)

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        torch = _torch()
        v = self.scale.pow(2) * self.df / (self.df - 2)
        v = torch.where((self.df <= 2) & (self.df > 1), torch.full_like(v, math.inf), v)
        return torch.where(self.df <= 1, torch.full_like(v, math.nan), v)

    def rsample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        x = torch.empty(shape, dtype=self.df.dtype).normal_()
        z = self._chi2.sample(sample_shape)
        return self.loc + self.scale * x * torch.rsqrt(z / self.df)

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + torch.lgamma(0.5 * self.df) - torch.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * torch.log1p(y ** 2.0 / self.df) - z

    def entropy(self):
        torch = _torch()
        half = 0.5 * self.df
        lbeta = torch.lgamma(half) + math.lgamma(0.5) - torch.lgamma(half + 0.5)
        return (self.scale.log() + (half + 0.5) * (torch.digamma(half + 0.5) - torch.digamma(half))
                + 0.5 * self.df.log() + lbeta)

