"""Reference implementations of ``torchvision.ops`` written with real PyTorch, from torchvision's documented
semantics (real torchvision cannot be installed next to torch 2.13 in msnb's venv).

Written as plain per-element loops so they read like the definitions: they are slow and meant for the
small inputs of the tests.  Gradients come from real torch's autograd through the same loops.  They were
checked by hand against real torchvision 0.29 (``/work/refvenv``) on the cases of ``test_tv_ops.py``.
"""

from __future__ import annotations

import math

import torch

__all__ = ["ref_box_iou", "ref_giou", "ref_diou", "ref_ciou", "ref_nms", "ref_batched_nms", "ref_roi_pool",
           "ref_roi_align", "ref_focal", "ref_giou_loss", "ref_diou_loss", "ref_ciou_loss"]


def _area(b):
    return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def _pairwise(b1, b2):
    """Intersection, union, enclosing-box width/height and centre distance of every pair, by loops."""
    n, m = b1.shape[0], b2.shape[0]
    rows = []
    for i in range(n):
        row = []
        for j in range(m):
            a, b = b1[i], b2[j]
            iw = (torch.minimum(a[2], b[2]) - torch.maximum(a[0], b[0])).clamp(min=0)
            ih = (torch.minimum(a[3], b[3]) - torch.maximum(a[1], b[1])).clamp(min=0)
            inter = iw * ih
            union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
            cw = torch.maximum(a[2], b[2]) - torch.minimum(a[0], b[0])
            ch = torch.maximum(a[3], b[3]) - torch.minimum(a[1], b[1])
            dx = (a[0] + a[2]) / 2 - (b[0] + b[2]) / 2
            dy = (a[1] + a[3]) / 2 - (b[1] + b[3]) / 2
            row.append(torch.stack([inter, union, cw, ch, dx * dx + dy * dy]))
        rows.append(torch.stack(row))
    return torch.stack(rows).unbind(-1)


def ref_box_iou(b1, b2):
    inter, union, *_ = _pairwise(b1, b2)
    return inter / union


def ref_giou(b1, b2):
    inter, union, cw, ch, _ = _pairwise(b1, b2)
    return inter / union - (cw * ch - union) / (cw * ch)


def ref_diou(b1, b2, eps=1e-7):
    inter, union, cw, ch, d2 = _pairwise(b1, b2)
    return inter / union - d2 / (cw ** 2 + ch ** 2 + eps)


def ref_ciou(b1, b2, eps=1e-7):
    """CIoU: DIoU minus alpha * v, v the aspect-ratio term; alpha is held constant for the gradient."""
    inter, union, cw, ch, d2 = _pairwise(b1, b2)
    iou = inter / union
    w1, h1 = (b1[:, 2] - b1[:, 0])[:, None], (b1[:, 3] - b1[:, 1])[:, None]
    w2, h2 = (b2[:, 2] - b2[:, 0])[None], (b2[:, 3] - b2[:, 1])[None]
    v = 4 / math.pi ** 2 * (torch.atan(w2 / h2) - torch.atan(w1 / h1)) ** 2
    alpha = (v / (1 - iou + v + eps)).detach()
    return iou - d2 / (cw ** 2 + ch ** 2 + eps) - alpha * v


def ref_nms(boxes, scores, thr):
    """Greedy NMS: visit boxes by decreasing score (equal scores: lower index first), keep a box unless its
    IoU with an already kept box is strictly above ``thr``."""
    order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
    keep = []
    for i in order:
        if all(float(ref_box_iou(boxes[i:i + 1], boxes[k:k + 1])[0, 0]) <= thr for k in keep):
            keep.append(i)
    return torch.tensor(keep, dtype=torch.int64)


def ref_batched_nms(boxes, scores, idxs, thr):
    """NMS per category, merged by decreasing score."""
    keep = []
    for c in sorted(set(idxs.tolist())):
        sel = [i for i in range(len(idxs)) if int(idxs[i]) == c]
        keep += [sel[int(k)] for k in ref_nms(boxes[sel], scores[sel], thr)]
    keep.sort(key=lambda i: (-float(scores[i]), i))
    return torch.tensor(keep, dtype=torch.int64)


def _c_round(v):
    """C's round(): halves away from zero."""
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def ref_roi_pool(x, rois, out_hw, scale=1.0):
    """Max pooling over the bins of each RoI: corners rounded after scaling, RoI size end - start + 1 (at least
    1), bin edges floor(p * size / P) and ceil((p + 1) * size / P), clipped to the image; empty bins are 0."""
    ph_n, pw_n = out_hw
    _, c, h, w = x.shape
    outs = []
    for r in rois:
        b = int(r[0])
        x1, y1, x2, y2 = (_c_round(float(r[j]) * scale) for j in (1, 2, 3, 4))
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        bins = []
        for ph in range(ph_n):
            hs = min(max(math.floor(ph * rh / ph_n) + y1, 0), h)
            he = min(max(math.ceil((ph + 1) * rh / ph_n) + y1, 0), h)
            for pw in range(pw_n):
                ws = min(max(math.floor(pw * rw / pw_n) + x1, 0), w)
                we = min(max(math.ceil((pw + 1) * rw / pw_n) + x1, 0), w)
                if he <= hs or we <= ws:
                    bins.append(x.new_zeros(c))
                    continue
                win = x[b, :, hs:he, ws:we].reshape(c, -1)
                first = win.argmax(dim=1)  # the first maximum gets the gradient
                bins.append(win.gather(1, first[:, None])[:, 0])
        outs.append(torch.stack(bins, 1).reshape(c, ph_n, pw_n))
    return torch.stack(outs)


def _sample(img, y, xx):
    """Bilinear value of (C, H, W) ``img`` at (y, x): 0 beyond one pixel outside, edges clamped."""
    _, h, w = img.shape
    if y < -1.0 or y > h or xx < -1.0 or xx > w:
        return img.new_zeros(img.shape[0])
    y, xx = max(y, 0.0), max(xx, 0.0)
    y0, x0 = min(int(y), h - 1), min(int(xx), w - 1)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly = 0.0 if y0 == h - 1 else y - y0
    lx = 0.0 if x0 == w - 1 else xx - x0
    return ((1 - ly) * (1 - lx) * img[:, y0, x0] + (1 - ly) * lx * img[:, y0, x1]
            + ly * (1 - lx) * img[:, y1, x0] + ly * lx * img[:, y1, x1])


def ref_roi_align(x, rois, out_hw, scale=1.0, sampling_ratio=-1, aligned=False):
    """Average of a regular grid of bilinear samples in each bin.  ``aligned`` shifts the scaled RoI by -0.5
    pixel; otherwise the RoI is at least 1x1.  Grid per bin side: ``sampling_ratio`` or ceil(roi / out)."""
    ph_n, pw_n = out_hw
    off = 0.5 if aligned else 0.0
    outs = []
    for r in rois:
        img = x[int(r[0])]
        x1, y1 = float(r[1]) * scale - off, float(r[2]) * scale - off
        rw, rh = float(r[3]) * scale - off - x1, float(r[4]) * scale - off - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / ph_n)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pw_n)
        bins = []
        for ph in range(ph_n):
            for pw in range(pw_n):
                acc = img.new_zeros(img.shape[0])
                for iy in range(gh):
                    for ix in range(gw):
                        y = y1 + ph * rh / ph_n + (iy + 0.5) * rh / ph_n / gh
                        xx = x1 + pw * rw / pw_n + (ix + 0.5) * rw / pw_n / gw
                        acc = acc + _sample(img, y, xx)
                bins.append(acc / max(gh * gw, 1))
        outs.append(torch.stack(bins, 1).reshape(-1, ph_n, pw_n))
    return torch.stack(outs)


def ref_focal(logits, targets, alpha=0.25, gamma=2.0):
    """Focal loss per element: alpha_t * (1 - p_t)^gamma * BCE (alpha < 0: no alpha_t)."""
    p = torch.sigmoid(logits)
    bce = -(targets * torch.log(p) + (1 - targets) * torch.log(1 - p))
    p_t = targets * p + (1 - targets) * (1 - p)
    a_t = targets * alpha + (1 - targets) * (1 - alpha) if alpha >= 0 else 1.0
    return a_t * (1 - p_t) ** gamma * bce


def ref_giou_loss(b1, b2, eps=1e-7):
    """1 - GIoU of matching rows (eps in the denominators as torchvision's loss)."""
    out = []
    for a, b in zip(b1, b2):
        iw = (torch.minimum(a[2], b[2]) - torch.maximum(a[0], b[0])).clamp(min=0)
        ih = (torch.minimum(a[3], b[3]) - torch.maximum(a[1], b[1])).clamp(min=0)
        inter = iw * ih
        union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
        area_c = (torch.maximum(a[2], b[2]) - torch.minimum(a[0], b[0])) * (
            torch.maximum(a[3], b[3]) - torch.minimum(a[1], b[1]))
        out.append(1 - (inter / (union + eps) - (area_c - union) / (area_c + eps)))
    return torch.stack(out)


def ref_diou_loss(b1, b2, eps=1e-7):
    """1 - IoU + centre distance^2 / enclosing diagonal^2 of matching rows (eps as torchvision's loss)."""
    out = []
    for a, b in zip(b1, b2):
        inter, union, cw, ch, d2 = (v[0, 0] for v in _pairwise(a[None], b[None]))
        out.append(1 - inter / (union + eps) + d2 / (cw ** 2 + ch ** 2 + eps))
    return torch.stack(out)


def ref_ciou_loss(b1, b2, eps=1e-7):
    """DIoU loss + alpha * v of matching rows, alpha held constant."""
    out = []
    for a, b in zip(b1, b2):
        inter, union, cw, ch, d2 = (v[0, 0] for v in _pairwise(a[None], b[None]))
        iou = inter / (union + eps)
        v = 4 / math.pi ** 2 * (torch.atan((b[2] - b[0]) / (b[3] - b[1])) - torch.atan((a[2] - a[0]) / (a[3] - a[1]))) ** 2
        alpha = (v / (1 - iou + v + eps)).detach()
        out.append(1 - iou + d2 / (cw ** 2 + ch ** 2 + eps) + alpha * v)
    return torch.stack(out)
