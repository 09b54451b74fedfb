"""Differential tests for the torch.nn pieces PyTorch's OpInfo / ModuleInfo replay
does not cover (or covers with few samples): 3-d and adaptive max pooling with
indices, Fold / Unfold, the index-table padding modes with negative pads,
distance / shuffle modules, EmbeddingBag, unpooling, fractional pooling with
given samples, grid_sample / affine_grid, CTC loss, embedding's max_norm and
scale_grad_by_freq, in-place and ``*_with_indices`` forms."""

import numpy as np
import pytest

from ..harness import compare, mt, real

rng = np.random.default_rng(0)
X5 = rng.standard_normal((2, 3, 5, 6, 7)).astype(np.float32)
X4 = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
X3 = rng.standard_normal((2, 3, 7)).astype(np.float32)
TOL = dict(rtol=1e-4, atol=1e-5)

NAMES = ("torch.nn.MaxPool3d", "torch.nn.functional.max_pool3d", "torch.nn.AdaptiveMaxPool2d",
         "torch.nn.functional.adaptive_max_pool1d", "torch.nn.Fold", "torch.nn.Unfold", "torch.nn.functional.fold",
         "torch.nn.ReflectionPad1d", "torch.nn.ReplicationPad2d", "torch.nn.CircularPad3d",
         "torch.nn.PairwiseDistance", "torch.nn.CosineSimilarity", "torch.nn.ChannelShuffle",
         "torch.nn.EmbeddingBag", "torch.nn.functional.embedding_bag", "torch.nn.MaxUnpool2d",
         "torch.nn.MaxUnpool1d", "torch.nn.MaxUnpool3d", "torch.nn.functional.max_unpool2d",
         "torch.nn.FractionalMaxPool2d", "torch.nn.functional.grid_sample", "torch.nn.functional.affine_grid",
         "torch.nn.CTCLoss", "torch.nn.functional.ctc_loss", "torch.nn.Embedding", "torch.nn.NLLLoss2d",
         "torch.nn.functional.elu_", "torch.nn.functional.leaky_relu_", "torch.nn.functional.selu_",
         "torch.nn.functional.celu_", "torch.nn.functional.hardtanh_", "torch.nn.functional.threshold_",
         "torch.nn.functional.max_pool2d_with_indices", "torch.nn.functional.max_pool3d_with_indices",
         "torch.nn.functional.max_pool1d_with_indices", "torch.nn.functional.adaptive_max_pool1d_with_indices",
         "torch.nn.functional.adaptive_max_pool2d_with_indices",
         "torch.nn.functional.adaptive_max_pool3d_with_indices",
         "torch.nn.functional.fractional_max_pool2d_with_indices",
         "torch.nn.functional.fractional_max_pool3d_with_indices", "torch.nn.functional.upsample",
         "torch.nn.TripletMarginWithDistanceLoss", "torch.nn.functional.rrelu_", "torch.nn.RReLU",
         "torch.nn.functional.gumbel_softmax", "torch.nn.LinearCrossEntropyLoss",
         "torch.nn.functional.softmax", "torch.nn.functional.softmin", "torch.nn.functional.lp_pool3d")


def test_max_pool3d_with_indices_ceil_and_dilation():
    compare(lambda t, x: t.nn.functional.max_pool3d(x, 3, 2, 1, (1, 2, 1), True, True), X5, **TOL)
    compare(lambda t, x: t.nn.MaxPool3d(2, return_indices=True)(x), X5, **TOL)


def test_lp_pool3d():
    compare(lambda t, x: t.nn.functional.lp_pool3d(x.abs() + 0.1, 2.0, 2, ceil_mode=True), X5, **TOL)


def test_adaptive_max_pools_give_pytorch_bins_and_indices():
    compare(lambda t, x: t.nn.AdaptiveMaxPool2d((4, None), return_indices=True)(x), X4, **TOL)
    compare(lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 3, True), X3, **TOL)


def test_fold_inverts_unfold_layout():
    compare(lambda t, x: t.nn.Unfold((2, 3), 1, 1, 2)(x), X4, **TOL)
    cols = rng.standard_normal((2, 12, 12)).astype(np.float32)
    compare(lambda t, c: t.nn.Fold((4, 5), 2)(c), cols, **TOL)
    compare(lambda t, c: t.nn.functional.fold(c, (4, 5), 2, 1, 0, 1), cols, **TOL)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(1, 2), (-2, 3), (2, -3), (-1, 1)])
def test_padding_modes_with_negative_pads(mode, pad):
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 4)
    try:
        real.nn.functional.pad(real.tensor(x), pad, mode)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            mt.nn.functional.pad(mt.tensor(x), pad, mode)
        return
    compare(lambda t, a: t.nn.functional.pad(a, pad, mode), x, **TOL)


def test_padding_modules_in_every_rank():
    compare(lambda t, x: t.nn.ReflectionPad1d((2, 1))(x), X3, **TOL)
    compare(lambda t, x: t.nn.ReplicationPad2d((1, 0, 2, 1))(x), X4, **TOL)
    compare(lambda t, x: t.nn.CircularPad3d(1)(x), X5, **TOL)


def test_distance_and_shuffle_modules():
    a, b = (rng.standard_normal((4, 6)).astype(np.float32) for _ in range(2))
    compare(lambda t, x, y: t.nn.PairwiseDistance(3.0)(x, y), a, b, **TOL)
    compare(lambda t, x, y: t.nn.CosineSimilarity(0)(x, y), a, b, **TOL)
    compare(lambda t, x: t.nn.ChannelShuffle(3)(x), rng.standard_normal((2, 6, 3, 3)).astype(np.float32), **TOL)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_with_offsets_and_padding(mode):
    w = rng.standard_normal((10, 4)).astype(np.float32)
    idx, off = np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 3, 5])  # one empty bag
    compare(lambda t, wt: t.nn.functional.embedding_bag(t.tensor(idx), wt, t.tensor(off), mode=mode,
                                                        padding_idx=2), w, **TOL)
    compare(lambda t, wt: t.nn.EmbeddingBag.from_pretrained(wt, freeze=False, mode=mode)(t.tensor(idx.reshape(2, 4))),
            w, **TOL)


def test_max_unpool_scatters_to_pool_indices():
    for n, x in ((1, X3), (2, X4), (3, X5[..., :6])):
        out, idx = getattr(real.nn.functional, f"max_pool{n}d")(real.tensor(x), 2, return_indices=True)
        o, i = out.numpy(), idx.numpy()
        compare(lambda t, a: getattr(t.nn, f"MaxUnpool{n}d")(2)(a, t.tensor(i), output_size=x.shape), o, **TOL)


def test_fractional_max_pool_follows_the_given_samples():
    samples = rng.random((2, 3, 2)).astype(np.float32)
    compare(lambda t, x: t.nn.FractionalMaxPool2d((2, 3), output_size=(3, 4), return_indices=True,
                                                  _random_samples=t.tensor(samples))(x), X4, **TOL)
    with pytest.raises(RuntimeError):  # PyTorch refuses samples of another dtype
        mt.nn.functional.fractional_max_pool2d(mt.tensor(X4), 2, output_size=2,
                                               _random_samples=mt.tensor(samples.astype(np.float64)))


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_gradients_reach_input_and_grid(padding_mode, align_corners):
    grid = (rng.random((2, 4, 5, 2)) * 2.4 - 1.2).astype(np.float32)
    compare(lambda t, x, g: t.nn.functional.grid_sample(x, g, "bilinear", padding_mode, align_corners),
            X4, grid, rtol=1e-4, atol=1e-4)


def test_affine_grid_2d_and_3d():
    compare(lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 4, 5), False),
            rng.standard_normal((2, 2, 3)).astype(np.float32), **TOL)
    compare(lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 4, 5, 3), True),
            rng.standard_normal((2, 3, 4)).astype(np.float32), **TOL)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_values_and_pytorch_gradient(reduction):
    T, N, C = 12, 3, 6
    logits = rng.standard_normal((T, N, C)).astype(np.float32)
    targets = rng.integers(1, C, (N, 5))

    def fn(t, x):
        lp = x.log_softmax(2)
        return t.nn.CTCLoss(reduction=reduction, zero_infinity=True)(lp, t.tensor(targets), (12, 10, 3), (5, 3, 4))
    compare(fn, logits, **TOL)
    # the gradient with respect to log_probs themselves has PyTorch's extra exp(log_probs) term
    lp = real.tensor(logits).log_softmax(2).numpy()
    compare(lambda t, x: t.nn.functional.ctc_loss(x, t.tensor(targets), t.tensor([12, 10, 8]), t.tensor([5, 3, 4]),
                                                  reduction=reduction), lp, **TOL)


def test_embedding_max_norm_renormalises_rows_in_place_and_scale_grad_by_freq():
    w = (rng.standard_normal((6, 3)) * 3).astype(np.float32)
    idx = np.array([[0, 2, 2], [5, 2, 1]])
    outs = []
    for t in (real, mt):
        emb = t.nn.Embedding(6, 3, max_norm=1.5, scale_grad_by_freq=True)
        with t.no_grad():
            emb.weight.copy_(t.tensor(w))
        y = emb(t.tensor(idx))
        (y * t.tensor(np.arange(18, dtype=np.float32).reshape(2, 3, 3))).sum().backward()
        outs.append((y.detach().numpy(), emb.weight.detach().numpy(), emb.weight.grad.numpy()))
    for r, m in zip(*outs):
        np.testing.assert_allclose(m, r, rtol=1e-5, atol=1e-6)


def test_inplace_and_with_indices_forms():
    for name, args in (("elu_", ()), ("leaky_relu_", (0.2,)), ("selu_", ()), ("celu_", ()), ("hardtanh_", ()),
                       ("threshold_", (0.1, -1.0)), ("rrelu_", ())):
        r = getattr(real.nn.functional, name)(real.tensor(X3), *args)
        m = getattr(mt.nn.functional, name)(mt.tensor(X3), *args)
        np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    compare(lambda t, x: t.nn.functional.max_pool2d_with_indices(x, 2), X4, **TOL)
    compare(lambda t, x: t.nn.functional.max_pool1d_with_indices(x, 2), X3, **TOL)
    compare(lambda t, x: t.nn.functional.max_pool3d_with_indices(x, 2), X5, **TOL)
    compare(lambda t, x: t.nn.functional.adaptive_max_pool1d_with_indices(x, 3), X3, **TOL)
    compare(lambda t, x: t.nn.functional.adaptive_max_pool2d_with_indices(x, 3), X4, **TOL)
    compare(lambda t, x: t.nn.functional.adaptive_max_pool3d_with_indices(x, 2), X5, **TOL)
    s2 = rng.random((2, 3, 2)).astype(np.float32)
    compare(lambda t, x: t.nn.functional.fractional_max_pool2d_with_indices(x, 2, (3, 3), _random_samples=t.tensor(s2)),
            X4, **TOL)
    s3 = rng.random((2, 3, 3)).astype(np.float32)
    compare(lambda t, x: t.nn.functional.fractional_max_pool3d_with_indices(x, 2, (2, 3, 3),
                                                                            _random_samples=t.tensor(s3)), X5, **TOL)
    compare(lambda t, x: t.nn.functional.upsample(x, scale_factor=2, mode="nearest"), X4, **TOL)


def test_losses_and_random_layers():
    a, p, n = (rng.standard_normal((4, 5)).astype(np.float32) for _ in range(3))
    compare(lambda t, x, y, z: t.nn.TripletMarginWithDistanceLoss(
        distance_function=t.nn.PairwiseDistance(), margin=0.5, swap=True)(x, y, z), a, p, n, **TOL)
    logp = real.tensor(rng.standard_normal((2, 4, 3, 3)).astype(np.float32)).log_softmax(1).numpy()
    tgt = rng.integers(0, 4, (2, 3, 3))
    compare(lambda t, x: t.nn.NLLLoss2d()(x, t.tensor(tgt)), logp, **TOL)
    m = mt.nn.RReLU(0.1, 0.3)
    y = m(mt.tensor(X3)).numpy()
    slope = y[X3 < 0] / X3[X3 < 0]
    assert (slope >= 0.1 - 1e-6).all() and (slope <= 0.3 + 1e-6).all() and (y[X3 >= 0] == X3[X3 >= 0]).all()
    m.eval()
    np.testing.assert_allclose(m(mt.tensor(X3)).numpy(), np.where(X3 >= 0, X3, X3 * 0.2), rtol=1e-6)
    g = mt.nn.functional.gumbel_softmax(mt.tensor(X4), hard=True, dim=1).numpy()
    assert set(np.unique(g)) <= {0.0, 1.0} and np.all(g.sum(1) == 1)


def test_linear_cross_entropy_loss_module():
    x = rng.standard_normal((8, 5)).astype(np.float32)
    tgt = rng.integers(0, 4, 8)

    def make(t):
        mod = t.nn.LinearCrossEntropyLoss(5, 4, bias=True)
        return mod

    rm, mm = make(real), make(mt)
    mm.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in rm.state_dict().items()})
    r = rm(real.tensor(x), real.tensor(tgt))
    m = mm(mt.tensor(x), mt.tensor(tgt))
    np.testing.assert_allclose(m.detach().numpy(), r.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_softmax_of_a_fully_masked_row_is_nan_and_leaves_other_rows_alone():
    """MindSpore's CPU Softmax kernel zeroes an all -inf row and every row after it."""
    x = np.array([[1.0, -np.inf, 2.0], [-np.inf] * 3, [0.5, 0.1, -np.inf]], np.float32)
    compare(lambda t, a: (t.nn.functional.softmax(a, 1), t.nn.functional.softmin(-a, 1), a.softmax(1)), x,
            grad=False, **TOL)
