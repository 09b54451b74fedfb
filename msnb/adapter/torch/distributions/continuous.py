"""``MultivariateNormal``, ``Gamma``, ``Dirichlet`` and ``Beta``.

Gamma-family draws (``Gamma``, ``Dirichlet``, ``Beta``) come from numpy's
gamma sampler seeded from msnb's generator, so ``torch.manual_seed`` makes
them reproducible, but the values are not PyTorch's stream.  Their
``rsample`` (implicit reparameterisation gradients) is not supported and says
so.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import constraints
from .distribution import Distribution, broadcast_all, lazy_property

__all__ = ["MultivariateNormal", "Gamma", "Dirichlet", "Beta"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _torch():
    from msnb.adapter import torch
    return torch


def _standard_gamma(concentration):
    """Gamma(concentration, 1) draws of ``concentration``'s shape, seeded from msnb's generator."""
    torch = _torch()
    seed = int(torch.randint(0, 2 ** 62, (), dtype=torch.int64).item())
    conc = concentration.detach().double().numpy()
    draws = np.random.default_rng(seed).standard_gamma(conc)
    tiny = np.finfo(np.float32 if concentration.dtype == torch.float32 else np.float64).tiny
    return torch.tensor(np.maximum(draws, tiny), dtype=concentration.dtype)


def _no_rsample(name):
    raise NotImplementedError(f"torch.distributions.{name}.rsample (reparameterised gamma draws) is not "
                              f"supported by msnb yet ({_SUPPORT}); sample() works")


class MultivariateNormal(Distribution):
    """msnb implementation of ``torch.distributions.MultivariateNormal`` (one of
    ``covariance_matrix``, ``precision_matrix``, ``scale_tril``)."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        torch = _torch()
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = scale_tril if scale_tril is not None else (
            covariance_matrix if covariance_matrix is not None else precision_matrix)
        if given.dim() < 2:
            raise ValueError("scale_tril matrix must be at least two-dimensional, with optional leading batch "
                             "dimensions" if scale_tril is not None else
                             "covariance_matrix must be at least two-dimensional, with optional leading batch "
                             "dimensions")
        batch_shape = torch.broadcast_shapes(given.shape[:-2], loc.shape[:-1])
        n = loc.shape[-1]
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self.precision_matrix = precision_matrix.expand(tuple(batch_shape) + (n, n))
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(torch.linalg.inv(precision_matrix))
        self.loc = loc.expand(tuple(batch_shape) + (n,))
        super().__init__(batch_shape, (n,), validate_args=validate_args)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-1, -2)).expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @lazy_property
    def precision_matrix(self):
        torch = _torch()
        return torch.linalg.inv(self.covariance_matrix)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                   tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        torch = _torch()
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype).normal_()
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        torch = _torch()
        return torch.diagonal(self._unbroadcasted_scale_tril, dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        L = self._unbroadcasted_scale_tril
        shape = torch.broadcast_shapes(L.shape[:-2], diff.shape[:-1])
        Lb = L.expand(tuple(shape) + tuple(L.shape[-2:]))
        sol = torch.linalg.solve(Lb, diff.expand(tuple(shape) + (diff.shape[-1],)).unsqueeze(-1)).squeeze(-1)
        m = sol.pow(2).sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(self._batch_shape) if len(self._batch_shape) else h


class Gamma(Distribution):
    """msnb implementation of ``torch.distributions.Gamma`` (``rate`` parameterisation)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(() if scalar else self.concentration.size(), validate_args=validate_args)

    mean = property(lambda self: self.concentration / self.rate)
    mode = property(lambda self: ((self.concentration - 1) / self.rate).clamp(min=0))
    variance = property(lambda self: self.concentration / self.rate.pow(2))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape).detach()

    def rsample(self, sample_shape=()):
        _no_rsample("Gamma")

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        return (torch.xlogy(self.concentration, self.rate) + torch.xlogy(self.concentration - 1, value)
                - self.rate * value - torch.lgamma(self.concentration))

    def entropy(self):
        torch = _torch()
        return (self.concentration - torch.log(self.rate) + torch.lgamma(self.concentration)
                + (1.0 - self.concentration) * torch.digamma(self.concentration))


class Dirichlet(Distribution):
    """msnb implementation of ``torch.distributions.Dirichlet``."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = _standard_gamma(self.concentration.expand(shape))
        return g / g.sum(-1, True)

    def rsample(self, sample_shape=()):
        _no_rsample("Dirichlet")

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(self.concentration - 1.0, value).sum(-1) + torch.lgamma(self.concentration.sum(-1))
                - torch.lgamma(self.concentration).sum(-1))

    def entropy(self):
        torch = _torch()
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (torch.lgamma(self.concentration).sum(-1) - torch.lgamma(a0) - (k - a0) * torch.digamma(a0)
                - ((self.concentration - 1.0) * torch.digamma(self.concentration)).sum(-1))


class Beta(Distribution):
    """msnb implementation of ``torch.distributions.Beta`` (a two-class Dirichlet, as in PyTorch)."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        torch = _torch()
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            c = torch.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            c = torch.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(c, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    concentration1 = property(lambda self: self._dirichlet.concentration[..., 0])
    concentration0 = property(lambda self: self._dirichlet.concentration[..., 1])

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def sample(self, sample_shape=()):
        return self._dirichlet.sample(sample_shape).select(-1, 0)

    def rsample(self, sample_shape=()):
        _no_rsample("Beta")

    def log_prob(self, value):
        torch = _torch()
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = torch.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()
