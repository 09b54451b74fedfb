"""``torch.distributions.Distribution``: batch and event shapes, argument
validation (on by default, as in PyTorch), sampling shapes."""

from __future__ import annotations

import math
import numbers

from . import constraints

__all__ = ["Distribution", "broadcast_all", "probs_to_logits", "logits_to_probs"]

_VALIDATE = [True]


def _torch():
    from msnb.adapter import torch
    return torch


def broadcast_all(*values):
    """Tensors and Python numbers broadcast to one shape (numbers become tensors of the default dtype)."""
    torch = _torch()
    if not all(isinstance(v, (torch.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, torch.Tensor) for v in values):
        like = next((v for v in values if isinstance(v, torch.Tensor)), None)
        dtype = like.dtype if like is not None else torch.get_default_dtype()
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return torch.broadcast_tensors(*values)


def probs_to_logits(probs, is_binary=False):
    torch = _torch()
    eps = torch.finfo(probs.dtype).eps
    ps = probs.clamp(min=eps, max=1 - eps)
    return torch.log(ps) - torch.log1p(-ps) if is_binary else torch.log(ps)


def logits_to_probs(logits, is_binary=False):
    torch = _torch()
    return torch.sigmoid(logits) if is_binary else torch.softmax(logits, dim=-1)


class lazy_property:
    """Computed once per instance on first read (PyTorch's ``lazy_property``)."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = self.fn(obj)
        obj.__dict__[self.fn.__name__] = value
        return value


class Distribution:
    """msnb implementation of ``torch.distributions.Distribution``."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict = {}
    support = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in (True, False):
            raise ValueError
        _VALIDATE[0] = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        torch = _torch()
        self._batch_shape = torch.Size(batch_shape)
        self._event_shape = torch.Size(event_shape)
        self._validate_args = _VALIDATE[0] if validate_args is None else validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.dependent is constraint or param not in self.__dict__ and isinstance(
                        getattr(type(self), param, None), lazy_property):
                    continue
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError(f"{type(self).__name__}.expand is not supported by msnb yet")

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        torch = _torch()
        with torch.no_grad():
            return self.rsample(sample_shape)

    def sample_n(self, n):
        return self.sample((n,))

    def rsample(self, sample_shape=()):
        raise NotImplementedError

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()):
        torch = _torch()
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        return torch.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        torch = _torch()
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.size())} vs "
                             f"{tuple(self._event_shape)}.")
        actual = value.size()
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {tuple(actual)} vs "
                                 f"{expected}.")
        support = self.support
        if support is None or support is constraints.dependent:
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to "
                             f"be within the support ({support!r}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in names)
        return f"{type(self).__name__}({args})"


LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))
