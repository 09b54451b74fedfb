"""Count distributions: ``Multinomial``, ``Binomial``, ``Poisson`` and ``Geometric``.

Parameterised as in PyTorch (``probs`` or ``logits``, exactly one; a
``total_count``); log-probabilities, moments and entropies follow PyTorch's
formulas.  Draws: ``Multinomial`` counts ``total_count`` categorical draws and
``Geometric`` inverts a uniform draw, so with ``torch.manual_seed`` they give
PyTorch's numbers; ``Poisson`` uses msnb's ``torch.poisson``; ``Binomial``
draws from numpy's generator seeded from msnb's (PyTorch's BTRS sampler is
not replayed), as the Gamma family does.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import constraints
from .discrete import Categorical, _one_of
from .distribution import Distribution, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Multinomial", "Binomial", "Poisson", "Geometric"]


def _torch():
    from msnb.adapter import torch
    return torch


def _xlogy_safe(logits, value):
    """``logits * value`` with 0 where both the count is 0 and the logit is -inf (0 * log 0 = 0)."""
    torch = _torch()
    keep = ~((value == 0) & (logits == -math.inf))
    return torch.where(keep, logits, torch.zeros_like(logits)) * value


class Multinomial(Distribution):
    """msnb implementation of ``torch.distributions.Multinomial``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def support(self):
        return constraints.independent(constraints.integer_interval(0, self.total_count), 1)

    def sample(self, sample_shape=()):
        torch = _torch()
        sample_shape = torch.Size(sample_shape)
        with torch.no_grad():
            draws = self._categorical.sample(torch.Size((self.total_count,)) + sample_shape)
            # (total_count, *sample, *batch) -> (*sample, *batch, total_count): count each event
            draws = draws.permute(*range(1, draws.dim()), 0)
            counts = torch.zeros(self._extended_shape(sample_shape), dtype=self.probs.dtype)
            return counts.scatter_add_(-1, draws, torch.ones_like(draws, dtype=self.probs.dtype))

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_n = torch.lgamma(value.sum(-1) + 1)
        log_xs = torch.lgamma(value + 1).sum(-1)
        return log_n - log_xs + _xlogy_safe(logits, value).sum(-1)

    def entropy(self):
        torch = _torch()
        n = torch.tensor(float(self.total_count))
        cat_entropy = self._categorical.entropy()
        # E[log x_i!] over each binomial marginal, by summing the support 0..n
        support = torch.arange(1, self.total_count + 1, dtype=self.probs.dtype)
        support = support.view((-1,) + (1,) * self.probs.dim())
        log_pmf = Binomial(self.total_count, self.probs).log_prob(support)
        return n * cat_entropy - torch.lgamma(n + 1) + (log_pmf.exp() * torch.lgamma(support + 1)).sum([0, -1])


class Binomial(Distribution):
    """msnb implementation of ``torch.distributions.Binomial``."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    param_shape = property(lambda self: self._param.size())
    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    def sample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        seed = int(torch.randint(0, 2 ** 62, (1,)).item())
        n = self.total_count.expand(shape).detach().numpy().astype(np.int64)
        p = self.probs.expand(shape).detach().double().numpy()
        return torch.tensor(np.random.default_rng(seed).binomial(n, p).astype(np.float64), dtype=self._param.dtype)

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_binom = torch.lgamma(n + 1) - torch.lgamma(value + 1) - torch.lgamma(n - value + 1)
        # log(p^k (1-p)^(n-k)) = k*logits - n*log1p(exp(logits)), written stably
        norm = n * torch.clamp(self.logits, min=0) + n * torch.log1p(torch.exp(-torch.abs(self.logits)))
        # k * logits is 0 when k == 0 and n*log(1-p) covers it, also at logits = -inf
        return log_binom + _xlogy_safe(self.logits, value) - torch.where(n == 0, torch.zeros_like(norm), norm)

    def entropy(self):
        torch = _torch()
        n = int(self.total_count.max().item())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        support = self.enumerate_support(False)
        log_pmf = self.log_prob(support)
        return -(torch.exp(log_pmf) * log_pmf).sum(0)

    def enumerate_support(self, expand=True):
        torch = _torch()
        n = int(self.total_count.max().item())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = torch.arange(1 + n, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Poisson(Distribution):
    """msnb implementation of ``torch.distributions.Poisson``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(() if isinstance(rate, numbers.Number) else self.rate.size(), validate_args=validate_args)

    mean = property(lambda self: self.rate)
    variance = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())

    def sample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return torch.xlogy(value, rate) - rate - torch.lgamma(value + 1)


class Geometric(Distribution):
    """msnb implementation of ``torch.distributions.Geometric``: failures before the first success."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            param = probs
        else:
            (self.logits,) = broadcast_all(logits)
            param = logits
        super().__init__(() if isinstance(param, numbers.Number) else
                         (self.probs if probs is not None else self.logits).size(), validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                             f"invalid values:\n{self.probs[self.probs <= 0]}")

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    @property
    def mode(self):
        return _torch().zeros_like(self.probs)

    def sample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = torch.rand(shape, dtype=self.probs.dtype).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0  # 0 * log(1 - 1) is 0 there
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        torch = _torch()
        return torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                     reduction="none") / self.probs
