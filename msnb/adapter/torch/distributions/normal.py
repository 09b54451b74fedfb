"""``Normal``, ``Laplace`` and ``Exponential`` (PyTorch's formulas: log_prob,
entropy, cdf/icdf; ``rsample`` reparameterised)."""

from __future__ import annotations

import math
import numbers

from . import constraints
from .distribution import LOG_SQRT_2PI, Distribution, broadcast_all

__all__ = ["Normal", "Laplace", "Exponential"]


def _torch():
    from msnb.adapter import torch
    return torch


class _LocScale(Distribution):
    """A real-valued family with a ``loc`` and a positive ``scale``, broadcast
    together (what Normal and Laplace share in PyTorch's constructors)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch = () if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.size()
        super().__init__(batch, validate_args=validate_args)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)


class Normal(_LocScale):
    """msnb implementation of ``torch.distributions.Normal``."""

    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.scale.pow(2))

    def sample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - LOG_SQRT_2PI

    def cdf(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        torch = _torch()
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


class Laplace(_LocScale):
    """msnb implementation of ``torch.distributions.Laplace``."""

    variance = property(lambda self: 2 * self.scale.pow(2))
    stddev = property(lambda self: (2 ** 0.5) * self.scale)

    def rsample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        finfo = torch.finfo(self.loc.dtype)
        u = torch.empty(shape, dtype=self.loc.dtype).uniform_(finfo.eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        torch = _torch()
        return 0.5 - 0.5 * (value - self.loc).sign() * torch.expm1(-(value - self.loc).abs() / self.scale)

    def entropy(self):
        return 1 + (2 * self.scale).log()


class Exponential(Distribution):
    """msnb implementation of ``torch.distributions.Exponential``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch = () if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch, validate_args=validate_args)

    mean = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: self.rate * 0)
    stddev = property(lambda self: self.rate.reciprocal())
    variance = property(lambda self: self.rate.pow(-2))

    def rsample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        return torch.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        torch = _torch()
        return -torch.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()
