"""Differential tests of ``torch.nn.functional``'s bad-input errors against real
PyTorch (the cases of its OpInfo ``error_inputs`` msnb answered differently):
each bad call raises torch's exception type, and the valid calls next to it
still give torch's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import compare, compare_raises

rng = np.random.default_rng(11)


def _x(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _i(high, *shape):
    return rng.integers(0, high, shape).astype(np.int64)


def F(t):
    return t.nn.functional


BAD = [
    ("softshrink_negative_lambda", lambda t, x: F(t).softshrink(x, -0.5), (_x(3),)),
    ("huber_loss_zero_delta", lambda t, x, y: F(t).huber_loss(x, y, delta=0.0), (_x(5, 4), _x(5, 4))),
    ("huber_loss_negative_delta", lambda t, x, y: F(t).huber_loss(x, y, delta=-1.0), (_x(5, 4), _x(5, 4))),
    ("rrelu_lower_above_upper", lambda t, x: F(t).rrelu(x, 0.3, 0.1), (_x(5, 5),)),
    ("rrelu_lower_above_upper_training", lambda t, x: F(t).rrelu(x, 0.3, 0.1, training=True), (_x(5, 5),)),
    ("triplet_margin_negative", lambda t, a, p, n: F(t).triplet_margin_loss(a, p, n, margin=-1.0),
     (_x(3, 4), _x(3, 4), _x(3, 4))),
    ("triplet_margin_zero", lambda t, a, p, n: F(t).triplet_margin_loss(a, p, n, margin=0),
     (_x(3, 4), _x(3, 4), _x(3, 4))),
    ("rms_norm_empty_shape", lambda t, x: F(t).rms_norm(x, (), None, 1e-5), (_x(1, 2, 3),)),
    ("rms_norm_shape_mismatch", lambda t, x: F(t).rms_norm(x, (2, 2), None, 1e-5), (_x(2, 2, 3),)),
    ("rms_norm_weight_mismatch", lambda t, x, w: F(t).rms_norm(x, (3,), w), (_x(2, 3), _x(2))),
    ("group_norm_1d_input", lambda t, x: F(t).group_norm(x, 1), (_x(1),)),
    ("prelu_2d_weight", lambda t, x, w: F(t).prelu(x, w), (_x(2, 8, 3), _x(2, 4))),
    ("prelu_2d_weight_one_element", lambda t, x, w: F(t).prelu(x, w), (_x(2, 3, 4), _x(1, 1))),
    ("prelu_0d_input_channel_weight", lambda t, x, w: F(t).prelu(x, w), (_x(), _x(2))),
    ("prelu_channel_mismatch", lambda t, x, w: F(t).prelu(x, w), (_x(2, 3, 4), _x(4))),
    ("embedding_0d_weight", lambda t, w, i: F(t).embedding(i, w), (_x(), _i(1, 2, 2))),
    ("embedding_3d_weight", lambda t, w, i: F(t).embedding(i, w), (_x(1, 1, 1), _i(1, 2, 2))),
    # convolutions: dtypes, dilation / stride / padding / groups, weight rank, bias shape
    ("conv1d_bias_dtype", lambda t, x, w, b: F(t).conv1d(x, w, b.double()), (_x(1, 1, 4), _x(1, 1, 2), _x(1))),
    ("conv2d_bias_dtype", lambda t, x, w, b: F(t).conv2d(x, w, b.double()), (_x(1, 1, 4, 4), _x(1, 1, 2, 2), _x(1))),
    ("conv3d_bias_dtype", lambda t, x, w, b: F(t).conv3d(x, w, b.double()),
     (_x(1, 1, 4, 4, 4), _x(1, 1, 2, 2, 2), _x(1))),
    ("conv2d_int_input_float_bias", lambda t, x, w, b: F(t).conv2d(x.long(), w.long(), b.double()),
     (_x(1, 1, 4, 4), _x(1, 1, 2, 2), _x(1))),
    ("conv2d_weight_dtype", lambda t, x, w: F(t).conv2d(x, w.double()), (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    ("conv1d_dilation_negative", lambda t, x, w: F(t).conv1d(x, w, dilation=(-1,)), (_x(1, 1, 4), _x(1, 1, 2))),
    ("conv2d_dilation_zero", lambda t, x, w: F(t).conv2d(x, w, dilation=0), (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    ("conv3d_dilation_zero", lambda t, x, w: F(t).conv3d(x, w, dilation=(0, 1, 1)),
     (_x(1, 1, 4, 4, 4), _x(1, 1, 2, 2, 2))),
    ("conv2d_stride_zero", lambda t, x, w: F(t).conv2d(x, w, stride=0), (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    ("conv2d_padding_negative", lambda t, x, w: F(t).conv2d(x, w, padding=-1), (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    ("conv2d_groups_zero", lambda t, x, w: F(t).conv2d(x, w, groups=0), (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    ("conv1d_2d_weight", lambda t, x, w: F(t).conv1d(x, w), (_x(1, 1, 4), _x(1, 2))),
    ("conv3d_4d_weight", lambda t, x, w: F(t).conv3d(x, w), (_x(1, 1, 3, 4, 5), _x(1, 1, 3, 3))),
    ("conv2d_bias_two_elements", lambda t, x, w, b: F(t).conv2d(x, w, b), (_x(1, 1, 4, 4), _x(1, 1, 2, 2), _x(2))),
    ("conv1d_bias_2d", lambda t, x, w, b: F(t).conv1d(x, w, b), (_x(1, 1, 4), _x(1, 1, 2), _x(1, 1))),
    ("conv3d_same_strided", lambda t, x, w: F(t).conv3d(x, w, stride=2, padding="same"),
     (_x(1, 1, 4, 4, 4), _x(1, 1, 2, 2, 2))),
    ("conv2d_bad_padding_string", lambda t, x, w: F(t).conv2d(x, w, padding="foo"), (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    ("conv_transpose2d_dilation_zero", lambda t, x, w: F(t).conv_transpose2d(x, w, dilation=0),
     (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    ("conv_transpose2d_stride_zero", lambda t, x, w: F(t).conv_transpose2d(x, w, stride=0),
     (_x(1, 1, 4, 4), _x(1, 1, 2, 2))),
    # margin losses: reduction name, weight rank, empty input
    ("multi_margin_bad_reduction", lambda t, x, y: F(t).multi_margin_loss(x, y, reduction="abc"),
     (_x(5, 4), _i(4, 5))),
    ("multi_margin_0d_weight", lambda t, x, y, w: F(t).multi_margin_loss(x, y, weight=w), (_x(5, 4), _i(4, 5), _x())),
    ("multi_margin_2d_weight", lambda t, x, y, w: F(t).multi_margin_loss(x, y, weight=w),
     (_x(5, 4), _i(4, 5), _x(1, 4))),
    ("multi_margin_empty_classes", lambda t, x, y: F(t).multi_margin_loss(x, y), (_x(5, 0), _i(1, 5))),
    ("multilabel_margin_bad_reduction", lambda t, x, y: F(t).multilabel_margin_loss(x, y, reduction="abc"),
     (_x(5, 4), _i(4, 5, 4))),
    ("multilabel_margin_empty", lambda t, x, y: F(t).multilabel_margin_loss(x, y.long()), (_x(0), _x(0))),
    # cross entropy and linear_cross_entropy: targets, weights, shapes
    ("cross_entropy_int_probabilities", lambda t, x, y: F(t).cross_entropy(x, y), (_x(2, 3), _i(3, 2, 3))),
    ("cross_entropy_short_weight", lambda t, x, y, w: F(t).cross_entropy(x, y, w), (_x(2, 3), _i(3, 2), _x(2))),
    ("cross_entropy_ignore_index_probabilities", lambda t, x, y: F(t).cross_entropy(x, y.softmax(1), ignore_index=1),
     (_x(2, 3), _x(2, 3))),
    ("cross_entropy_target_size", lambda t, x, y: F(t).cross_entropy(x, y), (_x(2, 3, 5), _i(3, 2, 4))),
    ("nll_loss_target_too_large", lambda t, x, y: F(t).nll_loss(x, y), (_x(2, 3), np.array([0, 3]))),
    ("nll_loss_target_negative", lambda t, x, y: F(t).nll_loss(x, y), (_x(2, 3), np.array([0, -2]))),
    ("cross_entropy_target_too_large", lambda t, x, y: F(t).cross_entropy(x, y),
     (_x(2, 3, 4), np.array([[0, 1, 2, 5]] * 2))),
    ("nll_loss_weight_dtype", lambda t, x, y, w: F(t).nll_loss(x, y, w.half()), (_x(2, 3), _i(3, 2), _x(3))),
    ("linear_ce_3d_input", lambda t, x, w, y: F(t).linear_cross_entropy(x, w, y),
     (_x(2, 3, 3), _x(2, 3), _i(2, 2, 3))),
    ("linear_ce_1d_weight", lambda t, x, w, y: F(t).linear_cross_entropy(x, w, y), (_x(2, 3), _x(2), _i(2, 2))),
    ("linear_ce_in_features", lambda t, x, w, y: F(t).linear_cross_entropy(x, w, y), (_x(2, 3), _x(2, 4), _i(2, 2))),
    ("linear_ce_ignore_index_probabilities",
     lambda t, x, w, y: F(t).linear_cross_entropy(x, w, y, ignore_index=0), (_x(2, 3), _x(2, 3), _x(2, 2))),
    ("linear_ce_k_dim_unbatched", lambda t, x, w, y: F(t).linear_cross_entropy(x, w, y),
     (_x(3), _x(2, 4, 3), _i(2, 4))),
    ("linear_ce_bias_shape", lambda t, x, w, y, b: F(t).linear_cross_entropy(x, w, y, linear_bias=b),
     (_x(2, 3), _x(2, 3), _i(2, 2), _x(3))),
    # found by a small bad-argument fuzz beyond the OpInfos
    ("linear_bias_length", lambda t, x, w, b: F(t).linear(x, w, b), (_x(2, 3), _x(4, 3), _x(5))),
    ("conv_transpose2d_bias_length", lambda t, x, w, b: F(t).conv_transpose2d(x, w, b),
     (_x(1, 1, 4, 4), _x(1, 1, 2, 2), _x(2))),
    ("layer_norm_empty_shape", lambda t, x: F(t).layer_norm(x, ()), (_x(2, 3),)),
    ("layer_norm_weight_shape", lambda t, x, w: F(t).layer_norm(x, (3,), w), (_x(2, 3), _x(2))),
    ("pixel_shuffle_2d_input", lambda t, x: F(t).pixel_shuffle(x, 2), (_x(4, 4),)),
    ("glu_0d_input", lambda t, x: F(t).glu(x), (_x(),)),
    ("smooth_l1_negative_beta", lambda t, x, y: F(t).smooth_l1_loss(x, y, beta=-1.0), (_x(3), _x(3))),
    ("celu_zero_alpha", lambda t, x: F(t).celu(x, 0.0), (_x(3),)),
    ("normalize_dim_out_of_range", lambda t, x: F(t).normalize(x, dim=3), (_x(2, 3),)),
    # max_unpool: indices of another shape than the input
    ("max_unpool2d_indices_shape", lambda t, x, i: F(t).max_unpool2d(x, i, 2), (_x(1, 1, 2, 2), _i(1, 1, 1, 2, 1))),
]


@pytest.mark.parametrize("fn,arrays", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_raises_torchs_type(fn, arrays):
    compare_raises(fn, *arrays)


GOOD = [
    ("softshrink_zero_lambda", lambda t, x: F(t).softshrink(x, 0.0), (_x(6),)),
    ("softshrink", lambda t, x: F(t).softshrink(x, 0.3), (_x(6),)),
    ("huber_loss_small_delta", lambda t, x, y: F(t).huber_loss(x, y, delta=0.1), (_x(5, 4), _x(5, 4))),
    ("rrelu_equal_bounds", lambda t, x: F(t).rrelu(x, 0.2, 0.2), (_x(5, 5),)),
    ("triplet_margin_small", lambda t, a, p, n: F(t).triplet_margin_loss(a, p, n, margin=0.1),
     (_x(3, 4), _x(3, 4), _x(3, 4))),
    ("rms_norm_two_dims", lambda t, x, w: F(t).rms_norm(x, (2, 3), w, 1e-5), (_x(4, 2, 3), _x(2, 3))),
    ("rms_norm_int_shape", lambda t, x: F(t).rms_norm(x, [3], None, 1e-5), (_x(4, 3),)),
    ("group_norm_2d_input", lambda t, x: F(t).group_norm(x, 2), (_x(3, 4),)),
    ("prelu_scalar_weight", lambda t, x, w: F(t).prelu(x, w), (_x(2, 3, 4), _x(1))),
    ("prelu_0d_input_0d_weight", lambda t, x, w: F(t).prelu(x, w), (_x(), _x())),
    ("prelu_channels", lambda t, x, w: F(t).prelu(x, w), (_x(2, 3, 4), _x(3))),
    ("conv1d_bias", lambda t, x, w, b: F(t).conv1d(x, w, b, dilation=2), (_x(2, 2, 8), _x(3, 2, 2), _x(3))),
    ("conv2d_bias_groups", lambda t, x, w, b: F(t).conv2d(x, w, b, padding=1, groups=2),
     (_x(1, 4, 5, 5), _x(2, 2, 3, 3), _x(2))),
    ("conv3d_same", lambda t, x, w: F(t).conv3d(x, w, padding="same"), (_x(1, 1, 4, 4, 4), _x(2, 1, 3, 3, 3))),
    # the class weights are constants (PyTorch refuses a weight that requires grad)
    ("multi_margin_weight", lambda t, x, y, w=_x(4): F(t).multi_margin_loss(x, y, weight=t.tensor(w)),
     (_x(5, 4), _i(4, 5))),
    ("multilabel_margin", lambda t, x, y: F(t).multilabel_margin_loss(x, y - 1), (_x(5, 4), _i(4, 5, 4))),
    ("cross_entropy_probabilities", lambda t, x, y: F(t).cross_entropy(x, y.softmax(1)), (_x(2, 3), _x(2, 3))),
    ("cross_entropy_weight_ignore", lambda t, x, y, w=np.abs(_x(3)): F(t).cross_entropy(x, y, t.tensor(w),
                                                                                     ignore_index=1),
     (_x(4, 3), _i(3, 4))),
    ("nll_loss_ignored_target_outside_classes", lambda t, x, y: F(t).nll_loss(x.log_softmax(1), y),
     (_x(3, 4), np.array([0, -100, 3]))),
    ("cross_entropy_k_dim", lambda t, x, y: F(t).cross_entropy(x, y), (_x(2, 3, 5), _i(3, 2, 5))),
    ("linear_one_element_bias", lambda t, x, w, b: F(t).linear(x, w, b), (_x(2, 3), _x(4, 3), _x(1))),
    ("conv_transpose2d_bias_groups", lambda t, x, w, b: F(t).conv_transpose2d(x, w, b, groups=2),
     (_x(1, 2, 4, 4), _x(2, 3, 2, 2), _x(6))),
    ("layer_norm_weight", lambda t, x, w, b: F(t).layer_norm(x, (3,), w, b), (_x(2, 3), _x(3), _x(3))),
    ("pixel_shuffle_3d_input", lambda t, x: F(t).pixel_shuffle(x, 2), (_x(4, 2, 3),)),
    ("smooth_l1_zero_beta", lambda t, x, y: F(t).smooth_l1_loss(x, y, beta=0.0), (_x(3), _x(3))),
    ("celu_alpha", lambda t, x: F(t).celu(x, 0.5), (_x(5),)),
    ("normalize_negative_dim", lambda t, x: F(t).normalize(x, dim=-1), (_x(2, 3),)),
    ("linear_ce_bias", lambda t, x, w, y, b: F(t).linear_cross_entropy(x, w, y, linear_bias=b),
     (_x(4, 3), _x(2, 3), _i(2, 4), _x(2))),
    ("linear_ce_ignore_index", lambda t, x, w, y: F(t).linear_cross_entropy(x, w, y, ignore_index=0),
     (_x(4, 3), _x(2, 3), _i(2, 4))),
]


@pytest.mark.parametrize("fn,arrays", [g[1:] for g in GOOD], ids=[g[0] for g in GOOD])
def test_valid_inputs_match_torch(fn, arrays):
    compare(fn, *arrays, rtol=1e-5, atol=1e-5)
