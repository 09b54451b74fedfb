"""msnb implementation of ``torchvision.ops``: box utilities, non-maximum suppression, RoI pooling and
the detection losses.

Box arithmetic (IoU variants, conversions, losses) is written with msnb's
torch ops, so gradients flow through msnb's autograd.  ``nms`` /
``batched_nms`` choose indices on the host (numpy) with torchvision's rules:
boxes are visited by decreasing score (a stable sort: equal scores keep
their input order) and a box is dropped when its IoU with a kept box is
strictly greater than the threshold.  ``roi_pool`` and ``roi_align`` compute
*where* to read on the host (torchvision's bin rounding, sampling grid and
bilinear weights) and then gather the values with msnb's ops, so the
gradient reaches ``input`` as torchvision's backward sends it (not the boxes).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["box_area", "box_convert", "box_iou", "generalized_box_iou", "distance_box_iou", "complete_box_iou",
           "clip_boxes_to_image", "remove_small_boxes", "nms", "batched_nms", "roi_pool", "roi_align", "RoIPool",
           "RoIAlign", "sigmoid_focal_loss", "generalized_box_iou_loss", "distance_box_iou_loss",
           "complete_box_iou_loss", "masks_to_boxes"]


def _torch():
    from .. import torch
    return torch


def _check_boxes(boxes, fn):
    torch = _torch()
    if not isinstance(boxes, torch.Tensor):
        raise TypeError(f"{fn}: boxes must be a torch.Tensor, got {type(boxes).__name__}")
    if boxes.shape[-1:] != (4,):
        raise ValueError(f"{fn}: boxes must have shape [..., 4], got {tuple(boxes.shape)}")


# --- box arithmetic ----------------------------------------------------------------------------------------

def box_area(boxes):
    """msnb implementation of ``torchvision.ops.box_area``: ``(x2 - x1) * (y2 - y1)`` of (x1, y1, x2, y2) boxes."""
    _check_boxes(boxes, "box_area")
    return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])


def _inter_union(boxes1, boxes2):
    torch = _torch()
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter, area1[:, None] + area2 - inter


def box_iou(boxes1, boxes2):
    """msnb implementation of ``torchvision.ops.box_iou``: the (N, M) pairwise IoU."""
    _check_boxes(boxes1, "box_iou")
    _check_boxes(boxes2, "box_iou")
    inter, union = _inter_union(boxes1, boxes2)
    return inter / union


def generalized_box_iou(boxes1, boxes2):
    """msnb implementation of ``torchvision.ops.generalized_box_iou`` (pairwise GIoU)."""
    torch = _torch()
    _check_boxes(boxes1, "generalized_box_iou")
    _check_boxes(boxes2, "generalized_box_iou")
    inter, union = _inter_union(boxes1, boxes2)
    iou = inter / union
    lti = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def _diou_iou(boxes1, boxes2, eps):
    torch = _torch()
    iou = box_iou(boxes1, boxes2)
    lti = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    diag = whi[:, :, 0] ** 2 + whi[:, :, 1] ** 2 + eps
    x_p = (boxes1[:, 0] + boxes1[:, 2]) / 2
    y_p = (boxes1[:, 1] + boxes1[:, 3]) / 2
    x_g = (boxes2[:, 0] + boxes2[:, 2]) / 2
    y_g = (boxes2[:, 1] + boxes2[:, 3]) / 2
    centers = (x_p[:, None] - x_g[None, :]) ** 2 + (y_p[:, None] - y_g[None, :]) ** 2
    return iou - centers / diag, iou


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """msnb implementation of ``torchvision.ops.distance_box_iou`` (pairwise DIoU)."""
    _check_boxes(boxes1, "distance_box_iou")
    _check_boxes(boxes2, "distance_box_iou")
    return _diou_iou(boxes1, boxes2, eps)[0]


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """msnb implementation of ``torchvision.ops.complete_box_iou`` (pairwise CIoU; the aspect weight alpha is
    a constant for the gradient, as in torchvision)."""
    torch = _torch()
    _check_boxes(boxes1, "complete_box_iou")
    _check_boxes(boxes2, "complete_box_iou")
    diou, iou = _diou_iou(boxes1, boxes2, eps)
    w_pred = boxes1[:, None, 2] - boxes1[:, None, 0]
    h_pred = boxes1[:, None, 3] - boxes1[:, None, 1]
    w_gt = boxes2[:, 2] - boxes2[:, 0]
    h_gt = boxes2[:, 3] - boxes2[:, 1]
    v = (4 / (math.pi ** 2)) * (torch.atan(w_gt / h_gt) - torch.atan(w_pred / h_pred)) ** 2
    with torch.no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


_FORMATS = ("xyxy", "xywh", "cxcywh")


def box_convert(boxes, in_fmt, out_fmt):
    """msnb implementation of ``torchvision.ops.box_convert`` between ``xyxy``, ``xywh`` and ``cxcywh``."""
    torch = _torch()
    if in_fmt not in _FORMATS or out_fmt not in _FORMATS:
        raise ValueError("Unsupported Bounding Box Conversions for given in_fmt and out_fmt")
    _check_boxes(boxes, "box_convert")
    if in_fmt == out_fmt:
        return boxes.clone()
    a, b, c, d = boxes.unbind(-1)
    if in_fmt == "xywh":
        a, b, c, d = a, b, a + c, b + d
    elif in_fmt == "cxcywh":
        a, b, c, d = a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d
    if out_fmt == "xywh":
        a, b, c, d = a, b, c - a, d - b
    elif out_fmt == "cxcywh":
        a, b, c, d = (a + c) / 2, (b + d) / 2, c - a, d - b
    return torch.stack((a, b, c, d), dim=-1)


def clip_boxes_to_image(boxes, size):
    """msnb implementation of ``torchvision.ops.clip_boxes_to_image``: x in [0, width], y in [0, height]."""
    torch = _torch()
    _check_boxes(boxes, "clip_boxes_to_image")
    height, width = size
    x1, y1, x2, y2 = boxes.unbind(-1)
    return torch.stack((x1.clamp(0, width), y1.clamp(0, height), x2.clamp(0, width), y2.clamp(0, height)), dim=-1)


def remove_small_boxes(boxes, min_size):
    """msnb implementation of ``torchvision.ops.remove_small_boxes``: indices of boxes at least ``min_size``
    wide and high."""
    torch = _torch()
    _check_boxes(boxes, "remove_small_boxes")
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    return torch.where((ws >= min_size) & (hs >= min_size))[0]


def _host(t):
    return np.asarray(t.detach().numpy())


def _nms_host(b, s, thr):
    order = np.argsort(-s, kind="stable")
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    suppressed = np.zeros(len(b), bool)
    keep = []
    for i in order:
        if suppressed[i]:
            continue
        keep.append(i)
        w = np.maximum(np.minimum(x2[i], x2) - np.maximum(x1[i], x1), 0)
        h = np.maximum(np.minimum(y2[i], y2) - np.maximum(y1[i], y1), 0)
        inter = w * h
        with np.errstate(all="ignore"):
            iou = inter / (areas[i] + areas - inter)
        suppressed |= iou > thr
    return np.asarray(keep, np.int64)


def nms(boxes, scores, iou_threshold):
    """msnb implementation of ``torchvision.ops.nms``: int64 indices of the kept boxes, by decreasing score."""
    torch = _torch()
    _check_boxes(boxes, "nms")
    if boxes.ndim != 2 or scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise RuntimeError(f"nms: boxes should be a 2d tensor of shape [N, 4] and scores a 1d tensor of shape "
                           f"[N], got {tuple(boxes.shape)} and {tuple(scores.shape)}")
    b, s = _host(boxes), _host(scores)
    return torch.from_numpy(_nms_host(b, s, b.dtype.type(iou_threshold)))


def batched_nms(boxes, scores, idxs, iou_threshold):
    """msnb implementation of ``torchvision.ops.batched_nms``: NMS within each category of ``idxs``
    (boxes of different categories never suppress each other)."""
    torch = _torch()
    _check_boxes(boxes, "batched_nms")
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    b, s, c = _host(boxes), _host(scores), _host(idxs)
    offsets = c.astype(b.dtype) * (b.max() + b.dtype.type(1))  # torchvision's coordinate trick
    return torch.from_numpy(_nms_host(b + offsets[:, None], s, b.dtype.type(iou_threshold)))


# --- RoI pooling -------------------------------------------------------------------------------------------

def _rois(boxes, fn):
    """(K, 5) host rois [batch index, x1, y1, x2, y2] from a (K, 5) tensor or a list of (L, 4) tensors."""
    torch = _torch()
    if isinstance(boxes, (list, tuple)):
        for b in boxes:
            if not isinstance(b, torch.Tensor) or b.ndim != 2 or b.shape[1] != 4:
                raise ValueError(f"{fn}: the boxes in a list must be Tensors of shape [L, 4]")
        parts = [np.concatenate([np.full((b.shape[0], 1), i, _host(b).dtype), _host(b)], 1)
                 for i, b in enumerate(boxes)]
        return np.concatenate(parts, 0) if parts else np.zeros((0, 5), np.float32)
    if not isinstance(boxes, torch.Tensor) or boxes.ndim != 2 or boxes.shape[1] != 5:
        raise ValueError(f"{fn}: boxes must be a Tensor of shape [K, 5] or a list of Tensors of shape [L, 4]")
    return _host(boxes)


def _pair(v):
    return (int(v), int(v)) if isinstance(v, int) else (int(v[0]), int(v[1]))


def _check_input(input, fn):
    torch = _torch()
    if not isinstance(input, torch.Tensor) or input.ndim != 4:
        raise ValueError(f"{fn}: input must be a 4-d Tensor (N, C, H, W)")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{fn}: input must be a floating point tensor, got {input.dtype}")


def _gather(input, bidx, idx, weights, count):
    """``out[k, c, p] = sum_s input[bidx[k], c, idx[k, p, s]] * weights[k, p, s] / count[k]`` with msnb ops."""
    torch = _torch()
    n, c, h, w = input.shape
    k, p, s = idx.shape
    if k == 0:
        return input.new_zeros((0, c, p))
    flat = input.reshape(n, c, h * w)[torch.from_numpy(bidx.astype(np.int64))]  # (K, C, HW)
    index = torch.from_numpy(idx.reshape(k, 1, p * s).astype(np.int64)).expand(k, c, p * s)
    vals = torch.gather(flat, 2, index).reshape(k, c, p, s)
    wt = torch.from_numpy((weights / count[:, None, None]).astype(_host_dtype(input))).reshape(k, 1, p, s)
    return (vals * wt).sum(-1)


def _host_dtype(t):
    return np.float64 if str(t.dtype) == "torch.float64" else np.float32


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """msnb implementation of ``torchvision.ops.roi_pool``: max over each bin of each RoI (bins: torchvision's
    rounded RoI corners, floor/ceil bin edges; an empty bin gives 0), shape (K, C, PH, PW)."""
    torch = _torch()
    _check_input(input, "roi_pool")
    ph_, pw_ = _pair(output_size)
    rois = _rois(boxes, "roi_pool")
    dt = _host_dtype(input)
    x = _host(input)
    n, c, height, width = x.shape
    k = rois.shape[0]
    idx = np.full((k, c, ph_ * pw_), -1, np.int64)
    r = rois.astype(dt)
    ss = dt(spatial_scale)
    for i in range(k):
        bi = int(r[i, 0])
        sw, sh, ew, eh = (int(_round_half_away(r[i, j] * ss)) for j in (1, 2, 3, 4))
        rw, rh = max(ew - sw + 1, 1), max(eh - sh + 1, 1)
        bh, bw = dt(rh) / dt(ph_), dt(rw) / dt(pw_)
        for ph in range(ph_):
            hs = min(max(int(np.floor(dt(ph) * bh)) + sh, 0), height)
            he = min(max(int(np.ceil(dt(ph + 1) * bh)) + sh, 0), height)
            for pw in range(pw_):
                ws = min(max(int(np.floor(dt(pw) * bw)) + sw, 0), width)
                we = min(max(int(np.ceil(dt(pw + 1) * bw)) + sw, 0), width)
                if he <= hs or we <= ws:
                    continue
                win = x[bi, :, hs:he, ws:we].reshape(c, -1)
                a = np.argmax(win, axis=1)  # first maximum in row-major order, as torchvision's strict '>'
                idx[i, :, ph * pw_ + pw] = (hs + a // (we - ws)) * width + ws + a % (we - ws)
    if k == 0:
        return input.new_zeros((0, c, ph_, pw_))
    flat = input.reshape(n, c, height * width)[torch.from_numpy(rois[:, 0].astype(np.int64))]
    valid = torch.from_numpy(idx >= 0)
    vals = torch.gather(flat, 2, torch.from_numpy(np.maximum(idx, 0)))
    return torch.where(valid, vals, torch.zeros((), dtype=input.dtype)).reshape(k, c, ph_, pw_)


def _bilinear(y, x, height, width):
    """Four (flat index, weight) pairs of torchvision's bilinear sample at (y, x); zeros outside."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return [(0, 0.0)] * 4
    y, x = max(y, 0), max(x, 0)
    yl, xl = int(y), int(x)
    if yl >= height - 1:
        yh = yl = height - 1
        y = type(y)(yl)
    else:
        yh = yl + 1
    if xl >= width - 1:
        xh = xl = width - 1
        x = type(x)(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    hy, hx = 1 - ly, 1 - lx
    return [(yl * width + xl, hy * hx), (yl * width + xh, hy * lx), (yh * width + xl, ly * hx),
            (yh * width + xh, ly * lx)]


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """msnb implementation of ``torchvision.ops.roi_align``: the mean of bilinear samples on a regular grid in
    each bin (``sampling_ratio`` per side, or ``ceil(roi size / output size)`` when <= 0); ``aligned=True``
    shifts the RoI by half a pixel."""
    _check_input(input, "roi_align")
    ph_, pw_ = _pair(output_size)
    rois = _rois(boxes, "roi_align")
    dt = _host_dtype(input)
    n, c, height, width = input.shape
    r = rois.astype(dt)
    ss, off = dt(spatial_scale), dt(0.5 if aligned else 0.0)
    per_roi, counts = [], []
    for i in range(r.shape[0]):
        sw, sh = r[i, 1] * ss - off, r[i, 2] * ss - off
        rw, rh = r[i, 3] * ss - off - sw, r[i, 4] * ss - off - sh
        if not aligned:
            rw, rh = max(rw, dt(1)), max(rh, dt(1))
        bh, bw = rh / dt(ph_), rw / dt(pw_)
        gh = int(sampling_ratio) if sampling_ratio > 0 else int(np.ceil(rh / dt(ph_)))
        gw = int(sampling_ratio) if sampling_ratio > 0 else int(np.ceil(rw / dt(pw_)))
        counts.append(max(gh * gw, 1))
        bins = []
        for ph in range(ph_):
            for pw in range(pw_):
                samples = []
                for iy in range(gh):
                    y = sh + dt(ph) * bh + (dt(iy) + dt(0.5)) * bh / dt(gh)
                    for ix in range(gw):
                        xx = sw + dt(pw) * bw + (dt(ix) + dt(0.5)) * bw / dt(gw)
                        samples += _bilinear(y, xx, height, width)
                bins.append(samples)
        per_roi.append(bins)
    k, p = len(per_roi), ph_ * pw_
    s = max([len(b) for bins in per_roi for b in bins] + [1])
    idx = np.zeros((k, p, s), np.int64)
    wts = np.zeros((k, p, s), dt)
    for i, bins in enumerate(per_roi):
        for j, samples in enumerate(bins):
            if samples:
                idx[i, j, :len(samples)] = [q for q, _ in samples]
                wts[i, j, :len(samples)] = [w for _, w in samples]
    out = _gather(input, rois[:, 0] if k else np.zeros(0), idx, wts, np.asarray(counts, dt).reshape(-1))
    return out.reshape(k, c, ph_, pw_)


def _module_base():
    from ..torch import nn
    return nn.Module


class RoIPool(_module_base()):
    """msnb implementation of ``torchvision.ops.RoIPool``."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"


class RoIAlign(_module_base()):
    """msnb implementation of ``torchvision.ops.RoIAlign``."""

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (f"{type(self).__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})")


# --- losses ------------------------------------------------------------------------------------------------

def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', "
                     "'mean', 'sum'")


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2, reduction="none"):
    """msnb implementation of ``torchvision.ops.sigmoid_focal_loss`` (RetinaNet's focal loss)."""
    from ..torch.nn import functional as F
    if reduction not in ("none", "mean", "sum"):
        _reduce(inputs, reduction)
    p = inputs.sigmoid()
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return _reduce(loss, reduction)


def _loss_terms(boxes1, boxes2, fn):
    """Per matching row: intersection, union, enclosing-box corners and centre distance."""
    torch = _torch()
    _check_boxes(boxes1, fn)
    _check_boxes(boxes2, fn)
    x1, y1, x2, y2 = boxes1.unbind(-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(-1)
    xk1, yk1 = torch.max(x1, x1g), torch.max(y1, y1g)
    xk2, yk2 = torch.min(x2, x2g), torch.min(y2, y2g)
    mask = (yk2 > yk1) & (xk2 > xk1)
    inter = torch.where(mask, (xk2 - xk1) * (yk2 - yk1), torch.zeros_like(x1))
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - inter
    xc1, yc1 = torch.min(x1, x1g), torch.min(y1, y1g)
    xc2, yc2 = torch.max(x2, x2g), torch.max(y2, y2g)
    centers = ((x1 + x2) / 2 - (x1g + x2g) / 2) ** 2 + ((y1 + y2) / 2 - (y1g + y2g) / 2) ** 2
    return inter, union, (xc1, yc1, xc2, yc2), centers


def generalized_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """msnb implementation of ``torchvision.ops.generalized_box_iou_loss``: ``1 - GIoU`` of matching boxes."""
    inter, union, (xc1, yc1, xc2, yc2), _ = _loss_terms(boxes1, boxes2, "generalized_box_iou_loss")
    iou = inter / (union + eps)
    area_c = (xc2 - xc1) * (yc2 - yc1)
    return _reduce(1 - (iou - ((area_c - union) / (area_c + eps))), reduction)


def _diou_loss(boxes1, boxes2, eps, fn):
    inter, union, (xc1, yc1, xc2, yc2), centers = _loss_terms(boxes1, boxes2, fn)
    iou = inter / (union + eps)
    diag = (xc2 - xc1) ** 2 + (yc2 - yc1) ** 2 + eps
    return 1 - iou + centers / diag, iou


def distance_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """msnb implementation of ``torchvision.ops.distance_box_iou_loss``: ``1 - DIoU`` of matching boxes."""
    return _reduce(_diou_loss(boxes1, boxes2, eps, "distance_box_iou_loss")[0], reduction)


def complete_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """msnb implementation of ``torchvision.ops.complete_box_iou_loss``: ``1 - CIoU`` of matching boxes (the
    aspect weight alpha is a constant for the gradient, as in torchvision)."""
    torch = _torch()
    loss, iou = _diou_loss(boxes1, boxes2, eps, "complete_box_iou_loss")
    w_pred, h_pred = boxes1[..., 2] - boxes1[..., 0], boxes1[..., 3] - boxes1[..., 1]
    w_gt, h_gt = boxes2[..., 2] - boxes2[..., 0], boxes2[..., 3] - boxes2[..., 1]
    v = (4 / (math.pi ** 2)) * (torch.atan(w_gt / h_gt) - torch.atan(w_pred / h_pred)) ** 2
    with torch.no_grad():
        alpha = v / (1 - iou + v + eps)
    return _reduce(loss + alpha * v, reduction)


def masks_to_boxes(masks):
    """msnb implementation of ``torchvision.ops.masks_to_boxes``: (N, 4) float boxes (x1, y1, x2, y2) around
    the non-zero pixels of each (H, W) mask."""
    torch = _torch()
    if masks.numel() == 0:
        return torch.zeros((0, 4), dtype=torch.float32)
    m = _host(masks)
    out = np.zeros((m.shape[0], 4), np.float32)
    for i, mask in enumerate(m):
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            raise ValueError("masks_to_boxes: a mask has no non-zero pixel")
        out[i] = (xs.min(), ys.min(), xs.max(), ys.max())
    return torch.from_numpy(out)
