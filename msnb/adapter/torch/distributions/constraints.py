"""``torch.distributions.constraints``: what values a parameter or a sample may
take, checked when ``validate_args`` is on (PyTorch's default)."""

from __future__ import annotations

__all__ = ["Constraint", "real", "positive", "nonnegative", "unit_interval", "simplex", "boolean",
           "nonnegative_integer", "positive_integer", "integer_interval", "interval", "half_open_interval",
           "greater_than", "greater_than_eq", "less_than", "lower_cholesky", "positive_definite", "real_vector",
           "independent", "dependent", "corr_cholesky"]


def _torch():
    from msnb.adapter import torch
    return torch


class Constraint:
    """A region of values; ``check(value)`` gives a bool tensor of the batch shape."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """The support depends on other parameters: not checked."""

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


class _Real(Constraint):
    def check(self, value):
        return value == value  # False for NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Independent(Constraint):
    def __init__(self, base, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base, reinterpreted_batch_ndims
        self.event_dim = base.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            result = result.all(-1)
        return result


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        torch = _torch()
        lower = (value.tril() == value).flatten(-2).all(-1)
        positive = (torch.diagonal(value, dim1=-2, dim2=-1) > 0).all(-1)
        return lower & positive


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value):
        torch = _torch()
        sym = (value - value.transpose(-1, -2)).abs().flatten(-2).amax(-1) < 1e-6
        eig = torch.linalg.eigvalsh(value)
        return sym & (eig > 0).all(-1)


class _CorrCholesky(_LowerCholesky):
    def check(self, value):
        unit = ((value * value).sum(-1) - 1).abs().lt(1e-6).all(-1)
        return super().check(value) & unit


dependent = _Dependent()
real = _Real()
real_vector = _Independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
boolean = _Boolean()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
corr_cholesky = _CorrCholesky()
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
independent = _Independent
