"""``Uniform`` on ``[low, high)``."""

from __future__ import annotations

import numbers

from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["Uniform"]


def _torch():
    from msnb.adapter import torch
    return torch


class Uniform(Distribution):
    """msnb implementation of ``torch.distributions.Uniform``."""

    arg_constraints = {"low": constraints.dependent, "high": constraints.dependent}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch = () if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) else self.low.size()
        super().__init__(batch, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError(f"Expected parameter low ({type(self.low).__name__} of shape "
                             f"{tuple(self.low.shape)}) of distribution {self!r} to satisfy the constraint "
                             f"LessThan(upper_bound=high), but found invalid values:\n{self.low}")

    @property
    def support(self):
        return constraints.half_open_interval(self.low, self.high)

    mean = property(lambda self: (self.high + self.low) / 2)
    stddev = property(lambda self: (self.high - self.low) / 12 ** 0.5)
    variance = property(lambda self: (self.high - self.low).pow(2) / 12)

    @property
    def mode(self):
        return self.high * float("nan")

    def rsample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        rand = torch.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()

    def __repr__(self):
        return f"Uniform(low: {self.low if self.low.numel() == 1 else self.low.size()}, " \
               f"high: {self.high if self.high.numel() == 1 else self.high.size()})"
