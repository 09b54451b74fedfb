"""``kl_divergence`` and ``register_kl``: closed forms looked up by the pair of
distribution types (the most specific registered pair wins, as in PyTorch)."""

from __future__ import annotations

import math

from .continuous import MultivariateNormal
from .discrete import Bernoulli, Categorical
from .normal import Exponential, Normal
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}


def _torch():
    from msnb.adapter import torch
    return torch


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for these types."""
    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorator


def _lookup(tp, tq):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(tp, p) and issubclass(tq, q)]
    if not matches:
        return None
    best = min(matches, key=lambda pq: (tp.__mro__.index(pq[0]), tq.__mro__.index(pq[1])))
    return _KL_REGISTRY[best]


def kl_divergence(p, q):
    """msnb implementation of ``torch.distributions.kl_divergence``."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    torch = _torch()
    sp = torch.nn.functional.softplus
    t1 = p.probs * (sp(-q.logits) - sp(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (sp(q.logits) - sp(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    torch = _torch()
    n = p.event_shape[0]
    Lq, Lp = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    half_term1 = q._half_log_det() - p._half_log_det()
    shape = torch.broadcast_shapes(Lq.shape[:-2], Lp.shape[:-2])
    Lqb, Lpb = Lq.expand(tuple(shape) + (n, n)), Lp.expand(tuple(shape) + (n, n))
    term2 = torch.linalg.solve(Lqb, Lpb).pow(2).flatten(-2).sum(-1)
    diff = (q.loc - p.loc).expand(tuple(shape) + (n,)).unsqueeze(-1)
    term3 = torch.linalg.solve(Lqb, diff).squeeze(-1).pow(2).sum(-1)
    return half_term1 + 0.5 * (term2 + term3 - n)
