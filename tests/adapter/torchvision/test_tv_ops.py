"""``torchvision.ops`` on msnb against reference implementations written with real torch
(``_tv_ops_reference.py``, checked by hand against real torchvision 0.29): values and gradients of the box
IoU family and losses, NMS's order and tie rules, RoIPool's rounding and RoIAlign's bilinear sampling
(``aligned``, ``sampling_ratio``), and torchvision's errors on bad arguments."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt
from msnb.adapter.torchvision import ops

from . import _tv_ops_reference as R

rng = np.random.default_rng(3)


def _boxes(n):
    xy = rng.uniform(0, 10, (n, 2))
    return np.concatenate([xy, xy + rng.uniform(0.5, 6, (n, 2))], 1)


B1, B2 = _boxes(5), _boxes(5)
X = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
X[0, :, 2:4, 2:4] = 1.0  # a flat window: roi_pool's first maximum takes the gradient
ROIS = np.array([[0, 1.2, 0.5, 6.3, 5.1], [1, 0, 0, 10.9, 8.9], [0, 3, 3, 3.2, 3.5], [1, -2, -1, 4.4, 3.6],
                 [0, 2, 2, 3.7, 3.9], [1, 7.5, 6.5, 14, 12]], np.float32)


def _grads(fn_m, fn_r, *arrays, weight_seed=0):
    """Outputs and input gradients (of a fixed random weighting) of msnb's and the reference's function."""
    mi = [mt.tensor(a, requires_grad=True) for a in arrays]
    ri = [real.tensor(a, requires_grad=True) for a in arrays]
    mo, ro = fn_m(*mi), fn_r(*ri)
    w = np.random.default_rng(weight_seed).standard_normal(tuple(ro.shape)).astype(arrays[0].dtype)
    (mo * mt.tensor(w)).sum().backward()
    (ro * real.tensor(w)).sum().backward()
    return mo, ro, mi, ri


def _close(m, r, tol):
    np.testing.assert_allclose(np.asarray(m.detach().numpy()), r.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name,ref", [("box_iou", R.ref_box_iou), ("generalized_box_iou", R.ref_giou),
                                      ("distance_box_iou", R.ref_diou), ("complete_box_iou", R.ref_ciou)])
def test_pairwise_iou_values_and_gradients(name, ref):
    mo, ro, mi, ri = _grads(getattr(ops, name), ref, B1, B2)
    assert tuple(mo.shape) == (5, 5) and str(mo.dtype) == str(ro.dtype)
    _close(mo, ro, 1e-10)
    for m, r in zip(mi, ri):
        _close(m.grad, r.grad, 1e-9)


@pytest.mark.parametrize("name,ref", [("distance_box_iou_loss", R.ref_diou_loss),
                                      ("complete_box_iou_loss", R.ref_ciou_loss)])
def test_diou_ciou_losses(name, ref):
    mo, ro, mi, ri = _grads(getattr(ops, name), ref, B1, B2)
    _close(mo, ro, 1e-10)
    for m, r in zip(mi, ri):
        _close(m.grad, r.grad, 1e-9)
    assert float(getattr(ops, name)(mt.tensor(B1), mt.tensor(B2), reduction="sum")) == pytest.approx(
        float(ro.detach().sum()))


def test_generalized_box_iou_loss_and_reductions():
    mo, ro, mi, ri = _grads(ops.generalized_box_iou_loss, R.ref_giou_loss, B1, B2)
    _close(mo, ro, 1e-10)
    _close(mi[0].grad, ri[0].grad, 1e-9)
    m1, m2 = mt.tensor(B1), mt.tensor(B2)
    assert float(ops.generalized_box_iou_loss(m1, m2, reduction="sum")) == pytest.approx(float(ro.detach().sum()))
    assert float(ops.generalized_box_iou_loss(m1, m2, reduction="mean")) == pytest.approx(float(ro.detach().mean()))
    with pytest.raises(ValueError, match="reduction"):
        ops.generalized_box_iou_loss(m1, m2, reduction="max")


@pytest.mark.parametrize("alpha,gamma", [(0.25, 2), (-1, 1.5), (0.6, 0)])
def test_sigmoid_focal_loss(alpha, gamma):
    logits = rng.standard_normal(7)
    targets = rng.integers(0, 2, 7).astype(np.float64)
    m = mt.tensor(logits, requires_grad=True)
    r = real.tensor(logits, requires_grad=True)
    mo = ops.sigmoid_focal_loss(m, mt.tensor(targets), alpha, gamma)
    ro = R.ref_focal(r, real.tensor(targets), alpha, gamma)
    _close(mo, ro, 1e-10)
    mo.sum().backward()
    ro.sum().backward()
    _close(m.grad, r.grad, 1e-9)
    assert float(ops.sigmoid_focal_loss(m, mt.tensor(targets), alpha, gamma, "mean").detach()) == pytest.approx(
        float(ro.detach().mean()))


def test_box_area_convert_clip_and_remove_small():
    b = mt.tensor(B1)
    np.testing.assert_allclose(ops.box_area(b).numpy(), (B1[:, 2] - B1[:, 0]) * (B1[:, 3] - B1[:, 1]))
    for fmt in ("xywh", "cxcywh"):
        there = ops.box_convert(b, "xyxy", fmt)
        np.testing.assert_allclose(ops.box_convert(there, fmt, "xyxy").numpy(), B1, atol=1e-12)
        np.testing.assert_allclose(ops.box_convert(there, fmt, "xywh" if fmt == "cxcywh" else "cxcywh").numpy(),
                                   ops.box_convert(b, "xyxy", "xywh" if fmt == "cxcywh" else "cxcywh").numpy(),
                                   atol=1e-12)
    xywh = ops.box_convert(b, "xyxy", "xywh").numpy()
    np.testing.assert_allclose(xywh[:, 2:], B1[:, 2:] - B1[:, :2])
    cxcy = ops.box_convert(b, "xyxy", "cxcywh").numpy()
    np.testing.assert_allclose(cxcy[:, :2], (B1[:, :2] + B1[:, 2:]) / 2)
    with pytest.raises(ValueError, match="Unsupported Bounding Box Conversions"):
        ops.box_convert(b, "xyxy", "yxyx")
    clipped = ops.clip_boxes_to_image(b, (7, 5)).numpy()
    np.testing.assert_allclose(clipped, np.stack([B1[:, 0].clip(0, 5), B1[:, 1].clip(0, 7), B1[:, 2].clip(0, 5),
                                                  B1[:, 3].clip(0, 7)], 1))
    keep = ops.remove_small_boxes(b, 3.0)
    assert str(keep.dtype) == "torch.int64"
    wh = B1[:, 2:] - B1[:, :2]
    assert keep.tolist() == [i for i in range(5) if (wh[i] >= 3.0).all()]


@pytest.mark.parametrize("thr", [0.0, 0.2, 0.5, 0.9])
def test_nms_order_and_ties(thr):
    """Integer scores make many ties: equal scores keep their input order; IoU == thr is kept."""
    b = _boxes(30).astype(np.float32)
    s = rng.integers(0, 5, 30).astype(np.float32)
    got = ops.nms(mt.tensor(b), mt.tensor(s), thr)
    assert str(got.dtype) == "torch.int64"
    assert got.tolist() == R.ref_nms(real.tensor(b), real.tensor(s), thr).tolist()


def test_nms_keeps_iou_equal_to_threshold_and_empty_input():
    b = mt.tensor([[0.0, 0, 2, 1], [0, 0, 1, 1]])  # IoU exactly 0.5
    assert ops.nms(b, mt.tensor([1.0, 0.5]), 0.5).tolist() == [0, 1]
    assert ops.nms(b, mt.tensor([1.0, 0.5]), 0.49).tolist() == [0]
    assert ops.nms(mt.zeros((0, 4)), mt.zeros((0,)), 0.5).tolist() == []
    with pytest.raises(RuntimeError, match="nms"):
        ops.nms(mt.zeros((3, 4)), mt.zeros((2,)), 0.5)


def test_batched_nms_per_category():
    b = _boxes(30).astype(np.float32)
    s = rng.standard_normal(30).astype(np.float32)
    c = rng.integers(0, 3, 30)
    got = ops.batched_nms(mt.tensor(b), mt.tensor(s), mt.tensor(c), 0.3)
    assert got.tolist() == R.ref_batched_nms(real.tensor(b), real.tensor(s), real.tensor(c), 0.3).tolist()
    assert ops.batched_nms(mt.zeros((0, 4)), mt.zeros((0,)), mt.zeros((0,), dtype=mt.int64), 0.5).tolist() == []


@pytest.mark.parametrize("size,scale", [((2, 3), 1.0), ((3, 3), 0.5), ((1, 2), 2.0)])
def test_roi_pool_values_and_gradient(size, scale):
    mo, ro, mi, ri = _grads(lambda x: ops.roi_pool(x, mt.tensor(ROIS), size, scale),
                            lambda x: R.ref_roi_pool(x, real.tensor(ROIS), size, scale), X)
    assert tuple(mo.shape) == (6, 3) + size
    _close(mo, ro, 0)
    _close(mi[0].grad, ri[0].grad, 1e-6)


@pytest.mark.parametrize("size,scale,ratio,aligned", [((2, 3), 1.0, -1, False), ((2, 3), 1.0, -1, True),
                                                      ((3, 3), 0.5, 2, False), ((2, 2), 0.5, 2, True),
                                                      ((1, 2), 2.0, 0, False), ((4, 4), 1.0, 1, True)])
def test_roi_align_values_and_gradient(size, scale, ratio, aligned):
    mo, ro, mi, ri = _grads(lambda x: ops.roi_align(x, mt.tensor(ROIS), size, scale, ratio, aligned),
                            lambda x: R.ref_roi_align(x, real.tensor(ROIS), size, scale, ratio, aligned), X)
    assert tuple(mo.shape) == (6, 3) + size and str(mo.dtype) == "torch.float32"
    _close(mo, ro, 2e-6)
    _close(mi[0].grad, ri[0].grad, 2e-6)


def test_roi_modules_and_list_of_boxes():
    """A list of per-image (L, 4) boxes means the same as (K, 5) rois with the batch index first."""
    x = mt.tensor(X)
    per_image = [mt.tensor(ROIS[ROIS[:, 0] == i, 1:]) for i in range(2)]
    rois = mt.tensor(np.concatenate([ROIS[ROIS[:, 0] == i] for i in range(2)]))
    align = ops.RoIAlign((2, 2), spatial_scale=0.5, sampling_ratio=2, aligned=True)
    pool = ops.RoIPool(3, 1.0)
    np.testing.assert_array_equal(align(x, per_image).numpy(), align(x, rois).numpy())
    np.testing.assert_array_equal(pool(x, per_image).numpy(), ops.roi_pool(x, rois, (3, 3)).numpy())
    assert repr(align) == "RoIAlign(output_size=(2, 2), spatial_scale=0.5, sampling_ratio=2, aligned=True)"
    assert repr(pool) == "RoIPool(output_size=3, spatial_scale=1.0)"
    with pytest.raises(ValueError, match="boxes"):
        ops.roi_align(x, mt.zeros((2, 4)), 2)


def test_masks_to_boxes():
    m = np.zeros((2, 6, 7), bool)
    m[0, 1:4, 2:6] = True
    m[1, 5, 0] = True
    got = ops.masks_to_boxes(mt.tensor(m))
    assert str(got.dtype) == "torch.float32"
    assert got.tolist() == [[2.0, 1.0, 5.0, 3.0], [0.0, 5.0, 0.0, 5.0]]
    assert tuple(ops.masks_to_boxes(mt.zeros((0, 3, 3))).shape) == (0, 4)
