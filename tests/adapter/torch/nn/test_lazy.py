"""Lazy modules against real torch: the inferred shapes, the class they become,
state-dict keys and order, repr before and after, and that a model built from
them trains like its eager twin once real torch's weights are copied in."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

rng = np.random.default_rng(1)
X = rng.standard_normal((3, 5)).astype(np.float32)
IMG = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)

#: the Lazy classes these cases cover (read by test_nn_coverage)
LAZY_CLASSES = ("Linear", "Conv1d", "Conv2d", "ConvTranspose2d", "BatchNorm1d", "BatchNorm2d", "Conv3d",
                "ConvTranspose1d", "BatchNorm3d")
VOL = rng.standard_normal((1, 2, 4, 4, 4)).astype(np.float32)

CASES = [
    ("linear", lambda t: t.nn.LazyLinear(4), X),
    ("linear_nobias", lambda t: t.nn.LazyLinear(4, bias=False), X),
    ("conv1d", lambda t: t.nn.LazyConv1d(6, 3, padding=1), IMG[:, :, 0]),
    ("conv2d_groups", lambda t: t.nn.LazyConv2d(6, 3, groups=3), IMG),
    ("conv2d_unbatched", lambda t: t.nn.LazyConv2d(2, 3), IMG[0]),
    ("convT2d", lambda t: t.nn.LazyConvTranspose2d(4, 3, stride=2, output_padding=1), IMG),
    ("bn1d", lambda t: t.nn.LazyBatchNorm1d(), X),
    ("bn2d", lambda t: t.nn.LazyBatchNorm2d(momentum=0.2), IMG),
    ("conv3d", lambda t: t.nn.LazyConv3d(2, 3), VOL),
    ("convT1d", lambda t: t.nn.LazyConvTranspose1d(2, 3, stride=2), IMG[:, :, 0]),
    ("bn3d", lambda t: t.nn.LazyBatchNorm3d(), VOL),
]


@pytest.mark.parametrize("make,x", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_lazy_module_matches_torch(make, x):
    ours, theirs = make(mt), make(real)
    assert repr(ours) == repr(theirs)
    out_t = theirs(real.from_numpy(x))
    ours(mt.tensor(x))  # first call: materialise
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    sd_t = theirs.state_dict()
    assert list(ours.state_dict()) == list(sd_t)
    for k, v in ours.state_dict().items():
        assert tuple(v.shape) == tuple(sd_t[k].shape), k
    ours.load_state_dict({k: mt.tensor(v.numpy()) for k, v in sd_t.items()})
    theirs.train(), ours.train()
    out_t = theirs(real.from_numpy(x))
    out_m = ours(mt.tensor(x))
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_lazy_model_trains_after_dry_run():
    """Built with lazy layers, dry run, then an optimizer: the loss falls."""
    mt.manual_seed(0)
    net = mt.nn.Sequential(mt.nn.LazyLinear(8), mt.nn.ReLU(), mt.nn.LazyLinear(1))
    x, y = mt.tensor(X), mt.tensor(X.sum(1, keepdims=True))
    net(x)
    opt = mt.optim.SGD(net.parameters(), lr=0.05)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = mt.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_optimizer_built_before_the_dry_run_trains_as_pytorch(opt_name):
    """d2l builds its optimizer from a lazy model's parameters before the first
    forward pass; both fill the placeholders in place, so the optimizer holds the
    real parameters: the same losses and weights as PyTorch."""
    runs = []
    for lib in (real, mt):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.LazyLinear(8), lib.nn.ReLU(), lib.nn.LazyLinear(1))
        opt = getattr(lib.optim, opt_name)(net.parameters(), lr=0.05)
        x, y = lib.tensor(X), lib.tensor(X.sum(1, keepdims=True))
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert all(p is q for p, q in zip(opt.param_groups[0]["params"], net.parameters()))
        runs.append((losses, net[0].weight.detach().numpy(), len(opt.state_dict()["state"])))
    (lt, wt, st), (lm, wm, sm) = runs
    np.testing.assert_allclose(lm, lt, rtol=1e-5)
    np.testing.assert_allclose(wm, wt, rtol=1e-5, atol=1e-6)
    assert sm == st


@pytest.mark.parametrize("make,shape", [
    (lambda t: t.nn.LazyLinear(3), (2, 5)),
    (lambda t: t.nn.LazyConv2d(2, 3), (1, 4, 6, 6)),
    (lambda t: t.nn.LazyBatchNorm1d(), (3, 4)),
], ids=["linear", "conv2d", "batchnorm"])
def test_placeholders_become_the_parameters_in_place(make, shape):
    """PyTorch materializes an UninitializedParameter in place: a reference taken before the
    first forward (an optimizer's, a user's list) is the module's parameter afterwards, of the
    inferred shape, a plain Parameter, registered under the same name; gradients reach it."""
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    seen = []
    for lib in (real, mt):
        m = make(lib)
        before = dict(m.named_parameters())
        m(lib.tensor(x)).sum().backward()
        after = dict(m.named_parameters())
        assert list(after) == list(before)
        for name, p in after.items():
            assert p is before[name], (lib.__name__, name)
            assert type(p) is lib.nn.Parameter and not lib.nn.parameter.is_lazy(p)
            assert p.grad is not None and tuple(p.grad.shape) == tuple(p.shape)
        seen.append(({n: tuple(p.shape) for n, p in after.items()},
                     {n: b.detach().numpy().astype(np.float64) for n, b in m.named_buffers()}))
    (pt, bt), (pm, bm) = seen
    assert pm == pt and list(bm) == list(bt)
    for n in bt:
        np.testing.assert_allclose(bm[n], bt[n], rtol=1e-5, err_msg=n)


def test_materialize_fills_the_placeholder():
    """``UninitializedParameter.materialize(shape)`` turns the object itself into a Parameter of
    that shape and the placeholder's dtype, as PyTorch's does; optimizer updates write into it."""
    for lib in (real, mt):
        p = lib.nn.UninitializedParameter(dtype=lib.float64)
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == lib.float64
        with lib.no_grad():
            p.fill_(1.0)
        p.grad = lib.ones(2, 3, dtype=lib.float64)
        lib.optim.Adam([p], lr=0.5).step()
        np.testing.assert_allclose(p.detach().numpy(), np.full((2, 3), 0.5))


def test_uninitialized_parameter_refuses_values():
    p = mt.nn.LazyLinear(3).weight
    assert isinstance(p, mt.nn.UninitializedParameter) and mt.nn.parameter.is_lazy(p)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        p.numel()


def test_lazy_conv_rejects_bad_rank():
    with pytest.raises(RuntimeError, match="Expected 3D"):
        mt.nn.LazyConv2d(2, 3)(mt.zeros(3, 4))


@pytest.mark.parametrize("make,shape", [
    (lambda t: t.nn.Sequential(t.nn.LazyLinear(8), t.nn.ReLU(), t.nn.LazyLinear(1)), (5, 4)),
    (lambda t: t.nn.Sequential(t.nn.LazyConv2d(3, 2), t.nn.LazyBatchNorm2d(), t.nn.Flatten(), t.nn.LazyLinear(2)),
     (2, 4, 5, 5)),
    (lambda t: t.nn.Sequential(t.nn.LazyConvTranspose1d(3, 2, groups=1), t.nn.LazyBatchNorm1d()), (2, 4, 6)),
], ids=["linear", "conv-batchnorm", "conv-transpose"])
def test_a_checkpoint_fills_an_uninitialized_lazy_model(tmp_path, make, shape):
    """d2l saves a trained lazy MLP and loads it into a fresh, never-run one:
    the placeholders take the checkpoint's shapes and values, as in PyTorch."""
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    results = []
    for lib in (real, mt):
        lib.manual_seed(0)
        net = make(lib).eval()
        y = net(lib.tensor(x))
        lib.save(net.state_dict(), tmp_path / f"{lib.__name__}.params")
        clone = make(lib).eval()
        clone.load_state_dict(lib.load(tmp_path / f"{lib.__name__}.params"))
        y2 = clone(lib.tensor(x))
        np.testing.assert_array_equal(y2.detach().numpy(), y.detach().numpy())
        results.append(([type(m).__name__ for m in clone], list(clone.state_dict()),
                        [tuple(v.shape) for v in clone.state_dict().values()], repr(clone)))
    assert results[0] == results[1]


def test_lazy_batchnorm_statistics_are_uninitialized_buffers():
    """Before its first call a LazyBatchNorm's running statistics are ``UninitializedBuffer``s
    (buffers, not parameters: an optimizer built then must not see them), and the call turns the
    same objects into buffers of the feature size, as PyTorch's do."""
    seen = []
    for lib in (real, mt):
        bn = lib.nn.LazyBatchNorm1d()
        before = {n: type(b).__name__ for n, b in bn.named_buffers()}
        params = sorted(n for n, _ in bn.named_parameters())
        mean = bn.running_mean
        assert isinstance(mean, lib.nn.UninitializedBuffer)
        bn(lib.tensor(X))
        seen.append((before, params, bn.running_mean is mean, tuple(bn.running_var.shape),
                     isinstance(bn.running_mean, lib.nn.UninitializedBuffer)))
    assert seen[0] == seen[1]
