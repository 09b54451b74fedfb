"""Differential tests of ``torch.nn.utils.prune`` against real PyTorch (the pruning
tutorial): the same seeded module pruned by each method in both libraries gives the
same masks, pruned weights, parameter/buffer names, forward output and gradient of
``weight_orig``; iterative pruning combines masks; global pruning, ``remove``,
``is_pruned``, ``prune()`` on a bare tensor and the argument errors match."""

from __future__ import annotations

import numpy as np
import pytest
import torch.nn.utils.prune  # noqa: F401 - real PyTorch does not import it with torch.nn.utils

from ...harness import real, mt

R = np.random.default_rng(0)
W = R.standard_normal((6, 4, 3)).astype(np.float32)
X = R.standard_normal((2, 4, 5)).astype(np.float32)


def conv(t):
    m = t.nn.Conv1d(4, 6, 3)
    with t.no_grad():
        m.weight.copy_(t.tensor(W))
        m.bias.copy_(t.arange(6, dtype=t.float32) * 0.1 - 0.25)
    return m


def state(t, m):
    out = m(t.tensor(X))
    out.sum().backward()
    grads = {n: p.grad for n, p in m.named_parameters()}
    return (sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers()),
            {n: b for n, b in m.named_buffers()}, m.weight.detach(), out.detach(), grads,
            t.nn.utils.prune.is_pruned(m), [type(h).__name__ for h in m._forward_pre_hooks.values()])


def run(steps):
    res = []
    for t in (real, mt):
        t.manual_seed(0)
        m = conv(t)
        for step in steps:
            step(t, m)
        res.append(state(t, m))
    return res


def P(t):  # noqa: N802
    return t.nn.utils.prune


STEPS = {
    "identity": [lambda t, m: P(t).identity(m, "weight")],
    "l1_unstructured[float]": [lambda t, m: P(t).l1_unstructured(m, "weight", amount=0.3)],
    "l1_unstructured[int, bias]": [lambda t, m: P(t).l1_unstructured(m, "bias", amount=3)],
    "random_unstructured": [lambda t, m: P(t).random_unstructured(m, "weight", amount=0.4)],
    "ln_structured[n=2, dim=0]": [lambda t, m: P(t).ln_structured(m, "weight", amount=0.5, n=2, dim=0)],
    "ln_structured[n=1, dim=1]": [lambda t, m: P(t).ln_structured(m, "weight", amount=1, n=1, dim=1)],
    "random_structured": [lambda t, m: P(t).random_structured(m, "weight", amount=2, dim=0)],
    "custom_from_mask": [lambda t, m: P(t).custom_from_mask(m, "bias", mask=t.tensor([0.0, 1, 0, 1, 1, 0]))],
    "iterative: l1 then ln_structured": [lambda t, m: P(t).l1_unstructured(m, "weight", amount=0.3),
                                        lambda t, m: P(t).ln_structured(m, "weight", amount=0.5, n=2, dim=0)],
    "iterative: random then l1": [lambda t, m: P(t).random_unstructured(m, "weight", amount=0.2),
                                 lambda t, m: P(t).l1_unstructured(m, "weight", amount=5)],
    "remove": [lambda t, m: P(t).l1_unstructured(m, "weight", amount=0.5), lambda t, m: P(t).remove(m, "weight")],
    "importance_scores": [lambda t, m: P(t).l1_unstructured(m, "weight", amount=0.25,
                                                             importance_scores=t.tensor(W[::-1].copy()))],
}


def _same(a, b, where):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b), where
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, real.Tensor):
        assert b is not None, where
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=where)
        assert str(b.dtype) == str(a.dtype), where
    else:
        assert a == b, (where, a, b)


@pytest.mark.parametrize("steps", list(STEPS), ids=str)
def test_prune_matches_pytorch(steps):
    r, m = run(STEPS[steps])
    _same(r, m, steps)


def test_global_unstructured_matches_pytorch():
    res = []
    for t in (real, mt):
        t.manual_seed(0)
        net = t.nn.Sequential(t.nn.Linear(5, 4), t.nn.ReLU(), t.nn.Linear(4, 3))
        P(t).l1_unstructured(net[2], "weight", amount=2)
        P(t).global_unstructured([(net[0], "weight"), (net[2], "weight"), (net[0], "bias")],
                                 pruning_method=P(t).L1Unstructured, amount=0.4)
        res.append(([float((p == 0).sum()) for p in (net[0].weight, net[2].weight, net[0].bias)],
                    {n: b for n, b in net.named_buffers()},
                    [type(h).__name__ for h in net[2]._forward_pre_hooks.values()]))
    _same(res[0], res[1], "global")


def test_prune_of_a_bare_tensor_matches_pytorch():
    out = []
    for t in (real, mt):
        out.append(P(t).L1Unstructured(amount=0.5).prune(t.tensor(W)))
    _same(out[0], out[1], "prune")


@pytest.mark.parametrize("call", [
    lambda t, m: P(t).l1_unstructured(m, "weight", amount=1.5),
    lambda t, m: P(t).l1_unstructured(m, "weight", amount=-1),
    lambda t, m: P(t).l1_unstructured(m, "weight", amount="a"),
    lambda t, m: P(t).l1_unstructured(m, "bias", amount=7),
    lambda t, m: P(t).remove(m, "weight"),
    lambda t, m: P(t).ln_structured(m, "weight", amount=1, n=2, dim=3),
], ids=["fraction above 1", "negative int", "not a number", "more than the entries", "remove unpruned",
        "dim out of range"])
def test_prune_errors_match_pytorch(call):
    errs = []
    for t in (real, mt):
        m = conv(t)
        with pytest.raises(Exception) as info:
            call(t, m)
        errs.append(info.value)
        assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]  # the module is left as it was
    assert type(errs[1]) is type(errs[0]), errs
