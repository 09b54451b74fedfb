"""Differential tests of the pooling argument checks every pooling function
shares (``msnb/adapter/torch/nn/_pool_check.py``) against real PyTorch: each
bad argument raises PyTorch's exception type in every function that takes
it, and the valid calls next to the limits (padding of exactly half the
window, ``ceil_mode``, an empty batch, ``None`` in an adaptive size) still give
torch's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import compare, compare_raises

rng = np.random.default_rng(7)


def _x(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def F(t):
    return t.nn.functional


# (id, fn(lib, x), input): each must raise in torch, and msnb must raise the same type
BAD = [
    # windowed pools: kernel / stride / dilation <= 0, padding < 0 or > half the window
    ("max1d_kernel0", lambda t, x: F(t).max_pool1d(x, 0), _x(1, 1, 9)),
    ("max1d_stride0", lambda t, x: F(t).max_pool1d(x, 2, 0), _x(1, 1, 9)),
    ("max1d_dilation0", lambda t, x: F(t).max_pool1d(x, 1, 1, 0, 0), _x(3, 3, 3)),
    ("max1d_dilation_neg", lambda t, x: F(t).max_pool1d(x, 2, dilation=-1), _x(1, 1, 9)),
    ("max1d_pad_neg", lambda t, x: F(t).max_pool1d(x, 2, 50, -1), _x(0, 1, 49)),
    ("max1d_pad_gt_half", lambda t, x: F(t).max_pool1d(x, 2, 50, 4), _x(0, 1, 49)),
    ("max1d_pad_gt_half_dilated", lambda t, x: F(t).max_pool1d(x, 3, 1, 3, 2), _x(0, 1, 49)),
    ("max1d_0d_input", lambda t, x: F(t).max_pool1d(x, 1), _x()),
    ("max1d_1d_empty", lambda t, x: F(t).max_pool1d(x, 1), _x(0)),
    ("max1d_empty_channels_unbatched", lambda t, x: F(t).max_pool1d(x, 1), _x(0, 10)),
    ("max1d_empty_length", lambda t, x: F(t).max_pool1d(x, 1), _x(1, 10, 0)),
    ("max1d_output_too_small", lambda t, x: F(t).max_pool1d(x, 5), _x(2, 2, 2)),
    ("max2d_pad_neg", lambda t, x: F(t).max_pool2d(x, (3, 2), 50, -1), _x(0, 1, 49)),
    ("max2d_pad_neg_one_dim", lambda t, x: F(t).max_pool2d(x, 2, padding=(1, -1)), _x(1, 1, 5, 5)),
    ("max2d_pad_gt_half", lambda t, x: F(t).max_pool2d(x, (3, 2), 50, 4), _x(0, 1, 49)),
    ("max2d_empty_dim", lambda t, x: F(t).max_pool2d(x, 1), _x(1, 0, 10)),
    ("max2d_empty_width", lambda t, x: F(t).max_pool2d(x, 1), _x(2, 1, 10, 0)),
    ("max2d_output_too_small", lambda t, x: F(t).max_pool2d(x, 2), _x(1, 1, 4)),
    ("max2d_kernel_3_ints", lambda t, x: F(t).max_pool2d(x, (2, 2, 2)), _x(1, 1, 4, 4)),
    ("max2d_stride_3_ints", lambda t, x: F(t).max_pool2d(x, 2, (1, 1, 1)), _x(1, 1, 4, 4)),
    ("max2d_kernel_float", lambda t, x: F(t).max_pool2d(x, 2.0), _x(1, 1, 4, 4)),
    ("max3d_pad_neg", lambda t, x: F(t).max_pool3d(x, 2, 50, -1), _x(0, 1, 49, 50)),
    ("max3d_pad_gt_half", lambda t, x: F(t).max_pool3d(x, (3, 2, 2), 50, 4), _x(0, 1, 49, 50)),
    ("max3d_empty_dim", lambda t, x: F(t).max_pool3d(x, 1), _x(0, 1, 2, 10)),
    ("max3d_output_too_small", lambda t, x: F(t).max_pool3d(x, 2), _x(1, 1, 1, 4, 4)),
    ("max3d_dilation0", lambda t, x: F(t).max_pool3d(x, 2, dilation=0), _x(1, 1, 5, 5, 5)),
    ("avg1d_pad_neg", lambda t, x: F(t).avg_pool1d(x, 2, 50, -1), _x(0, 1, 49)),
    ("avg1d_pad_gt_half", lambda t, x: F(t).avg_pool1d(x, 2, 50, 4), _x(0, 1, 49)),
    ("avg1d_stride0", lambda t, x: F(t).avg_pool1d(x, 2, 0), _x(1, 1, 4)),
    ("avg1d_1d_input", lambda t, x: F(t).avg_pool1d(x, 2), _x(4)),
    ("avg2d_kernel0", lambda t, x: F(t).avg_pool2d(x, 0), _x(1, 1, 4, 4)),
    ("avg2d_pad_neg", lambda t, x: F(t).avg_pool2d(x, (3, 2), 50, -1), _x(0, 1, 49)),
    ("avg2d_pad_gt_half", lambda t, x: F(t).avg_pool2d(x, 2, 50, 4), _x(0, 1, 49)),
    ("avg2d_divisor_zero", lambda t, x: F(t).avg_pool2d(x, (2, 2), divisor_override=0), _x(3, 3, 3)),
    ("avg2d_output_too_small", lambda t, x: F(t).avg_pool2d(x, 2), _x(1, 1, 1, 4)),
    ("avg2d_empty_channels", lambda t, x: F(t).avg_pool2d(x, 2), _x(2, 0, 4, 4)),
    ("avg2d_kernel_3_ints", lambda t, x: F(t).avg_pool2d(x, (2, 2, 2)), _x(1, 1, 4, 4)),
    ("avg2d_int64_pad_gt_half", lambda t, x: F(t).avg_pool2d(x.long(), 2, padding=2), _x(1, 1, 6, 6)),
    ("avg3d_pad_neg", lambda t, x: F(t).avg_pool3d(x, (3, 2, 2), 50, -1), _x(0, 1, 49, 50)),
    ("avg3d_pad_gt_half", lambda t, x: F(t).avg_pool3d(x, 2, 50, 4), _x(0, 1, 49, 50)),
    ("avg3d_divisor_zero", lambda t, x: F(t).avg_pool3d(x, (2, 2, 2), divisor_override=0), _x(3, 3, 3, 3)),
    ("avg3d_3d_input", lambda t, x: F(t).avg_pool3d(x, 2, 50), _x(0, 1, 49)),
    ("avg3d_output_too_small", lambda t, x: F(t).avg_pool3d(x, 2), _x(1, 1, 1, 4, 4)),
    ("lp1d_kernel0", lambda t, x: F(t).lp_pool1d(x, 2, 0), _x(1, 1, 4)),
    ("lp2d_output_too_small", lambda t, x: F(t).lp_pool2d(x, 2, 2), _x(1, 1, 1, 4)),
    ("lp3d_output_too_small", lambda t, x: F(t).lp_pool3d(x, 2, 2), _x(1, 1, 1, 4, 4)),
    ("lp2d_kernel_3_ints", lambda t, x: F(t).lp_pool2d(x, 2, (2, 2, 2)), _x(1, 1, 6, 6)),
    ("lp3d_kernel_2_ints", lambda t, x: F(t).lp_pool3d(x, 2, (2, 2)), _x(1, 1, 6, 6, 6)),
    ("lp1d_4d_input", lambda t, x: F(t).lp_pool1d(x, 2, 2), _x(1, 1, 1, 6)),
    # fractional max pooling: sizes, input rank, empty dims, negative outputs, windows too large
    ("fractional2d_kernel_3_ints", lambda t, x: F(t).fractional_max_pool2d(x, (2, 2, 2), output_size=2),
     _x(1, 1, 6, 6)),
    ("fractional2d_kernel_1_int_tuple", lambda t, x: F(t).fractional_max_pool2d(x, (2,), output_size=2),
     _x(1, 1, 6, 6)),
    ("fractional2d_output_1_int_tuple", lambda t, x: F(t).fractional_max_pool2d(x, 2, output_size=(2,)),
     _x(1, 1, 6, 6)),
    ("fractional2d_negative_output", lambda t, x: F(t).fractional_max_pool2d(x, 2, output_size=-1), _x(1, 1, 6, 6)),
    ("fractional2d_window_too_large", lambda t, x: F(t).fractional_max_pool2d(x, 4, output_size=4), _x(1, 1, 6, 6)),
    ("fractional2d_ratio_too_large", lambda t, x: F(t).fractional_max_pool2d(x, 2, output_ratio=(1.5, 1.5)),
     _x(1, 1, 6, 6)),
    ("fractional2d_2d_input", lambda t, x: F(t).fractional_max_pool2d(x, 2, output_size=2), _x(6, 6)),
    ("fractional2d_5d_input", lambda t, x: F(t).fractional_max_pool2d(x, 2, output_size=2), _x(1, 1, 1, 6, 6)),
    ("fractional2d_empty_height", lambda t, x: F(t).fractional_max_pool2d(x, 1, output_size=1), _x(1, 1, 0, 6)),
    ("fractional3d_kernel_2_ints", lambda t, x: F(t).fractional_max_pool3d(x, (2, 2), output_size=2),
     _x(1, 1, 6, 6, 6)),
    ("fractional3d_3d_input", lambda t, x: F(t).fractional_max_pool3d(x, 2, output_size=2), _x(6, 6, 6)),
    ("fractional3d_kernel_float", lambda t, x: F(t).fractional_max_pool3d(x, 2.0, output_size=2), _x(1, 1, 6, 6, 6)),
    # adaptive pools: output_size of the wrong length or negative, input of the wrong rank or empty
    ("adaptive_avg1d_empty_size", lambda t, x: F(t).adaptive_avg_pool1d(x, ()), _x(1, 2, 3)),
    ("adaptive_avg1d_two_sizes", lambda t, x: F(t).adaptive_avg_pool1d(x, (2, 2)), _x(1, 4)),
    ("adaptive_avg1d_negative", lambda t, x: F(t).adaptive_avg_pool1d(x, (-1,)), _x(1, 1, 1)),
    ("adaptive_avg1d_1d_input", lambda t, x: F(t).adaptive_avg_pool1d(x, 2), _x(4)),
    ("adaptive_avg2d_rank_vs_size", lambda t, x: F(t).adaptive_avg_pool2d(x, (2, 2)), _x(2, 2)),
    ("adaptive_avg2d_2d_int_size", lambda t, x: F(t).adaptive_avg_pool2d(x, 2), _x(4, 4)),
    ("adaptive_avg2d_empty_size", lambda t, x: F(t).adaptive_avg_pool2d(x, ()), _x(1, 2, 3, 4)),
    ("adaptive_avg2d_one_size_tuple", lambda t, x: F(t).adaptive_avg_pool2d(x, (3,)), _x(1, 2, 7, 5)),
    ("max1d_pad_gt_half_undilated_kernel", lambda t, x: F(t).max_pool1d(x, 3, 1, 2, 2), _x(1, 2, 9)),
    ("max2d_pad_gt_half_undilated_kernel", lambda t, x: F(t).max_pool2d(x, 2, 1, 2, 3), _x(1, 2, 9, 9)),
    ("adaptive_avg2d_three_sizes", lambda t, x: F(t).adaptive_avg_pool2d(x, (2, 2, 2)), _x(1, 1, 4, 4)),
    ("adaptive_avg2d_negative", lambda t, x: F(t).adaptive_avg_pool2d(x, (-1, 0)), _x(1, 1, 1, 1)),
    ("adaptive_avg2d_empty_height", lambda t, x: F(t).adaptive_avg_pool2d(x, 2), _x(1, 1, 0, 4)),
    ("adaptive_avg3d_rank_vs_size", lambda t, x: F(t).adaptive_avg_pool3d(x, (2, 2, 2)), _x(2, 2, 2)),
    ("adaptive_avg3d_empty_size", lambda t, x: F(t).adaptive_avg_pool3d(x, ()), _x(1, 2, 3, 4)),
    ("adaptive_avg3d_negative", lambda t, x: F(t).adaptive_avg_pool3d(x, (-1, 0, 2)), _x(1, 1, 1, 1, 1)),
    ("adaptive_max1d_empty_size", lambda t, x: F(t).adaptive_max_pool1d(x, ()), _x(1, 2, 3)),
    ("adaptive_max1d_negative", lambda t, x: F(t).adaptive_max_pool1d(x, (-1,)), _x(1, 1, 1)),
    ("adaptive_max2d_rank_vs_size", lambda t, x: F(t).adaptive_max_pool2d(x, (2, 2)), _x(2, 2)),
    ("adaptive_max2d_empty_size", lambda t, x: F(t).adaptive_max_pool2d(x, ()), _x(1, 2, 3, 4)),
    ("adaptive_max2d_negative", lambda t, x: F(t).adaptive_max_pool2d(x, (-1, 0)), _x(1, 1, 1, 1)),
    ("adaptive_max2d_empty_height", lambda t, x: F(t).adaptive_max_pool2d(x, 2), _x(1, 1, 0, 4)),
    ("adaptive_max3d_rank_vs_size", lambda t, x: F(t).adaptive_max_pool3d(x, (2, 2, 2)), _x(2, 2, 2)),
    ("adaptive_max3d_empty_size", lambda t, x: F(t).adaptive_max_pool3d(x, ()), _x(1, 2, 3, 4)),
    ("adaptive_max3d_negative", lambda t, x: F(t).adaptive_max_pool3d(x, (-1, 0, 2)), _x(1, 1, 1, 1, 1)),
    # the modules go through the same functions
    ("MaxPool2d_2d_input", lambda t, x: t.nn.MaxPool2d(2)(x), _x(3, 4)),
    ("MaxPool2d_5d_input", lambda t, x: t.nn.MaxPool2d(2)(x), _x(1, 2, 3, 4, 5)),
    ("AvgPool1d_stride0", lambda t, x: t.nn.AvgPool1d(2, 0)(x), _x(1, 1, 4)),
    ("AdaptiveAvgPool2d_negative", lambda t, x: t.nn.AdaptiveAvgPool2d((-1, 2))(x), _x(1, 1, 4, 4)),
]


@pytest.mark.parametrize("fn,x", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_pool_arguments_raise_torchs_type(fn, x):
    compare_raises(fn, x)


# valid calls at the edges of the checks: torch's values and gradients
GOOD = [
    ("max1d_pad_half", lambda t, x: F(t).max_pool1d(x, 4, 2, 2), _x(2, 3, 9)),
    ("max1d_dilated_pad", lambda t, x: F(t).max_pool1d(x, 3, 1, 1, 2), _x(1, 2, 9)),
    ("max1d_unbatched", lambda t, x: F(t).max_pool1d(x, 2), _x(3, 8)),
    ("max1d_ceil", lambda t, x: F(t).max_pool1d(x, 2, ceil_mode=True), _x(1, 2, 7)),
    ("max2d_ceil_pad", lambda t, x: F(t).max_pool2d(x, 3, 2, 1, ceil_mode=True), _x(1, 2, 6, 7)),
    ("max2d_kernel_one_tuple", lambda t, x: F(t).max_pool2d(x, (2,), stride=()), _x(1, 1, 4, 6)),
    ("max3d_pad_half", lambda t, x: F(t).max_pool3d(x, 2, 1, 1), _x(1, 1, 3, 3, 3)),
    ("avg1d_pad_half", lambda t, x: F(t).avg_pool1d(x, 4, 2, 2, count_include_pad=False), _x(2, 3, 9)),
    ("avg2d_ceil", lambda t, x: F(t).avg_pool2d(x, 2, ceil_mode=True), _x(1, 1, 5, 5)),
    ("avg2d_divisor", lambda t, x: F(t).avg_pool2d(x, 2, divisor_override=3), _x(1, 2, 4, 4)),
    ("avg2d_float64", lambda t, x: F(t).avg_pool2d(x.double(), 3, 2, 1), _x(1, 1, 5, 5)),
    ("avg3d_ceil", lambda t, x: F(t).avg_pool3d(x, 2, ceil_mode=True), _x(1, 1, 3, 5, 5)),
    ("lp1d", lambda t, x: F(t).lp_pool1d(x.abs() + 0.1, 2, 3, 2), _x(1, 2, 8)),
    ("lp2d", lambda t, x: F(t).lp_pool2d(x.abs() + 0.1, 2, (2, 3)), _x(1, 2, 4, 6)),
    ("lp3d", lambda t, x: F(t).lp_pool3d(x.abs() + 0.1, 2, 2), _x(1, 1, 4, 4, 4)),
    ("fractional2d_unbatched_empty_channels", lambda t, x: F(t).fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=t.zeros(1, 0, 2)), _x(0, 4, 4)),
    ("adaptive_avg2d_none", lambda t, x: F(t).adaptive_avg_pool2d(x, (None, 2)), _x(1, 4, 4)),
    ("adaptive_avg2d_empty_channels", lambda t, x: F(t).adaptive_avg_pool2d(x, 2), _x(0, 4, 4)),
    ("adaptive_avg1d", lambda t, x: F(t).adaptive_avg_pool1d(x, 3), _x(2, 7)),
    ("adaptive_avg3d_none", lambda t, x: F(t).adaptive_avg_pool3d(x, (None, 2, 1)), _x(1, 3, 4, 4)),
    ("adaptive_max1d", lambda t, x: F(t).adaptive_max_pool1d(x, 3), _x(1, 2, 7)),
    ("adaptive_max2d_none", lambda t, x: F(t).adaptive_max_pool2d(x, (None, 3)), _x(1, 4, 5)),
    ("adaptive_max3d", lambda t, x: F(t).adaptive_max_pool3d(x, 2), _x(1, 1, 4, 5, 3)),
]


@pytest.mark.parametrize("fn,x", [g[1:] for g in GOOD], ids=[g[0] for g in GOOD])
def test_valid_pool_calls_match_torch(fn, x):
    compare(fn, x, rtol=1e-5, atol=1e-6)


# a zero adaptive output size: torch's forward gives an empty tensor (its backward refuses one)
ZERO_OUT = [
    ("fractional2d_zero_ratio", lambda t, x: F(t).fractional_max_pool2d(x, 2, output_ratio=(0.0, 0.0)),
     _x(1, 1, 6, 6)),
    ("adaptive_max2d_zero_out_indices", lambda t, x: F(t).adaptive_max_pool2d(x, (2, 0), return_indices=True),
     _x(1, 1, 4, 4)),
    ("adaptive_avg2d_zero_out", lambda t, x: F(t).adaptive_avg_pool2d(x, (0, 2)), _x(1, 4, 4)),
    ("adaptive_max2d_zero_out", lambda t, x: F(t).adaptive_max_pool2d(x, (0, 2)), _x(1, 4, 4)),
    ("adaptive_avg3d_zero_out", lambda t, x: F(t).adaptive_avg_pool3d(x, (2, 0, 1)), _x(1, 1, 4, 4, 4)),
]


@pytest.mark.parametrize("fn,x", [z[1:] for z in ZERO_OUT], ids=[z[0] for z in ZERO_OUT])
def test_zero_adaptive_output_size(fn, x):
    compare(fn, x, grad=False)


@pytest.mark.parametrize("name,call", [
    ("max_pool2d", lambda t, x: F(t).max_pool2d(x, 2)),
    ("avg_pool2d", lambda t, x: F(t).avg_pool2d(x, 2)),
    ("max_pool1d", lambda t, x: F(t).max_pool1d(x[:, :, 0], 2)),
])
def test_empty_batch_is_allowed(name, call):
    """An empty batch passes the input check (PyTorch allows only the batch dim to be empty)."""
    compare(call, _x(0, 2, 4, 4), grad=False)
