"""The tensor path of torchvision's image ops used by the auto-augment policies, in numpy.

torchvision computes these on tensors with its own formulas (not PIL's):
affine / rotate build a sampling grid from the inverse affine matrix and
call ``grid_sample`` (``align_corners=False``, zero padding; a fill colour
rides along as an extra all-ones channel), sharpness blends with a 3x3
smoothing convolution, equalize builds a per-channel look-up table from a
256-bin histogram.  Each function here takes and returns numpy arrays shaped
``(..., C, H, W)`` and repeats those steps in the same dtype (float32 for
integer images) and the same order of float operations, so uint8 results are
torchvision's bit for bit (checked against real torchvision's outputs in
tests/adapter/torchvision/test_tv_autoaugment.py).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["max_value", "check_image", "check_channels", "invert", "posterize", "solarize", "autocontrast",
           "equalize", "adjust_sharpness", "inverse_affine_matrix", "affine", "rotate", "blend"]

def max_value(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return 1
    if dtype.kind in "iu":
        return int(np.iinfo(dtype).max)
    return 1.0


def check_image(arr):
    if arr.ndim < 2:
        raise TypeError("Tensor is not a torch image.")


def check_channels(arr, permitted):
    c = 1 if arr.ndim == 2 else arr.shape[-3]
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {list(permitted)}, but found {c}")


def _compute_dtype(dtype):
    """torchvision computes integer images in float32 and float images in their own dtype."""
    return np.dtype(dtype) if np.dtype(dtype).kind == "f" else np.dtype(np.float32)


def _back_to(out, dtype):
    """``_cast_squeeze_out``: integer images are rounded (half to even) before the cast."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        out = np.rint(out)
    return out.astype(dtype)


def blend(img1, img2, ratio, dtype):
    """``(ratio * img1 + (1 - ratio) * img2).clamp(0, bound).to(dtype)`` in the compute dtype."""
    cd = _compute_dtype(dtype)
    r = cd.type(float(ratio))
    out = r * np.asarray(img1, dtype=cd) + cd.type(1.0 - float(ratio)) * np.asarray(img2, dtype=cd)
    return np.clip(out, cd.type(0), cd.type(max_value(dtype))).astype(dtype)


def _three_dims(arr):
    if arr.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {arr.ndim}")


def invert(arr):
    check_image(arr)
    _three_dims(arr)
    check_channels(arr, (1, 3))
    if arr.dtype == np.bool_:
        return ~arr
    return (np.asarray(max_value(arr.dtype), dtype=arr.dtype) - arr).astype(arr.dtype)


def posterize(arr, bits):
    check_image(arr)
    _three_dims(arr)
    if arr.dtype != np.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found torch.{_torch_name(arr.dtype)}")
    check_channels(arr, (1, 3))
    mask = np.uint8((-int(2 ** (8 - bits))) & 0xFF)
    return arr & mask


def solarize(arr, threshold):
    check_image(arr)
    _three_dims(arr)
    check_channels(arr, (1, 3))
    if threshold > max_value(arr.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    cd = _compute_dtype(arr.dtype)
    return np.where(arr.astype(cd) >= cd.type(threshold), invert(arr), arr)


def autocontrast(arr):
    check_image(arr)
    _three_dims(arr)
    check_channels(arr, (1, 3))
    bound = max_value(arr.dtype)
    cd = _compute_dtype(arr.dtype)
    lo = arr.min(axis=(-2, -1), keepdims=True).astype(cd)
    hi = arr.max(axis=(-2, -1), keepdims=True).astype(cd)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = cd.type(bound) / (hi - lo)
    flat = ~np.isfinite(scale)
    lo = np.where(flat, cd.type(0), lo)
    scale = np.where(flat, cd.type(1), scale)
    out = (arr.astype(cd) - lo) * scale
    return np.clip(out, cd.type(0), cd.type(bound)).astype(arr.dtype)


def _equalize_channel(chan):
    hist = np.bincount(chan.reshape(-1), minlength=256).astype(np.int64)
    nonzero = hist[hist != 0]
    step = int(nonzero[:-1].sum()) // 255
    if step == 0:
        return chan
    lut = (np.cumsum(hist) + step // 2) // step
    lut = np.clip(np.concatenate([[0], lut[:-1]]), 0, 255)
    return lut[chan.astype(np.int64)].astype(np.uint8)


def equalize(arr):
    check_image(arr)
    if not 3 <= arr.ndim <= 4:
        raise TypeError(f"Input image tensor should have 3 or 4 dimensions, but found {arr.ndim}")
    if arr.dtype != np.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found torch.{_torch_name(arr.dtype)}")
    check_channels(arr, (1, 3))
    flat = arr.reshape((-1,) + arr.shape[-3:])
    out = np.stack([np.stack([_equalize_channel(img[c]) for c in range(img.shape[0])]) for img in flat])
    return out.reshape(arr.shape)


def adjust_sharpness(arr, factor):
    """Blend with the image smoothed by torchvision's ``[[1,1,1],[1,5,1],[1,1,1]] / 13`` kernel (border kept)."""
    if factor < 0:
        raise ValueError(f"sharpness_factor ({factor}) is not non-negative.")
    check_image(arr)
    check_channels(arr, (1, 3))
    if arr.shape[-1] <= 2 or arr.shape[-2] <= 2:
        return arr
    cd = _compute_dtype(arr.dtype)
    k = np.ones((3, 3), dtype=cd)
    k[1, 1] = 5.0
    k = k / k.sum(dtype=cd)
    x = arr.astype(cd)
    h, w = arr.shape[-2:]
    acc = None
    for dy in range(3):
        for dx in range(3):
            term = x[..., dy:h - 2 + dy, dx:w - 2 + dx] * k[dy, dx]
            acc = term if acc is None else acc + term
    blurred = arr.copy()
    blurred[..., 1:-1, 1:-1] = _back_to(acc, arr.dtype)
    return blend(arr, blurred, factor, arr.dtype)


def _torch_name(dtype):
    """numpy's dtype name is torch's for the image dtypes (uint8, float32, ...)."""
    return np.dtype(dtype).name


# --- affine family -----------------------------------------------------------------------------------
def inverse_affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """torchvision's ``_get_inverse_affine_matrix``: output -> input pixel map (Python floats)."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:
        m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
        m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
        m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
        m[2] += cx
        m[5] += cy
    else:
        m = [x * scale for x in (a, b, 0.0, c, d, 0.0)]
        m[2] += m[0] * (-cx) + m[1] * (-cy)
        m[5] += m[3] * (-cx) + m[4] * (-cy)
        m[2] += cx + tx
        m[5] += cy + ty
    return m


def _check_grid_inputs(arr, interpolation, fill):
    check_image(arr)
    c = 1 if arr.ndim == 2 else arr.shape[-3]
    if fill is not None and isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != c:
        raise ValueError("The number of elements in 'fill' cannot broadcast to match the number of channels of "
                         f"the image ({len(fill)} != {c})")
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor input")


def _affine_grid(matrix, w, h, ow, oh, cd):
    """``_gen_affine_grid``: pixel centres of the output, through theta, normalised by the input size."""
    theta = np.asarray(matrix, dtype=cd).reshape(2, 3)
    xs = (np.arange(ow, dtype=cd) + cd.type(-ow * 0.5 + 0.5))
    ys = (np.arange(oh, dtype=cd) + cd.type(-oh * 0.5 + 0.5))
    half = np.asarray([0.5 * w, 0.5 * h], dtype=cd)
    r = theta.T / half  # (3, 2)
    gx = (xs[None, :] * r[0, 0] + ys[:, None] * r[1, 0]) + r[2, 0]
    gy = (xs[None, :] * r[0, 1] + ys[:, None] * r[1, 1]) + r[2, 1]
    return gx, gy


def _fma(a, b, c, cd):
    """``a * b + c`` rounded once, as PyTorch's vectorised CPU kernels compute it (fused multiply-add).

    float32: the product is exact in float64 and the sum is rounded to float64 then to float32 (a double
    rounding that differs from a true fma only on exact float32 half-way sums); float64 is computed
    unfused."""
    if cd == np.float32:
        return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(cd)
    return a * b + c


def _grid_sample(x, gx, gy, mode, cd):
    """``grid_sample(x, grid, mode, padding_mode='zeros', align_corners=False)`` on (N, C, H, W),
    with PyTorch's CPU kernel's fused multiply-adds (unnormalising and the bilinear sum)."""
    _, _, h, w = x.shape
    ix = _fma(gx + cd.type(1), cd.type(w / 2), cd.type(-0.5), cd)
    iy = _fma(gy + cd.type(1), cd.type(h / 2), cd.type(-0.5), cd)

    def pick(yy, xx):
        ok = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
        vals = x[:, :, np.clip(yy, 0, h - 1).astype(np.int64), np.clip(xx, 0, w - 1).astype(np.int64)]
        return np.where(ok, vals, cd.type(0))

    if mode == "nearest":
        return pick(np.rint(iy), np.rint(ix))
    x0, y0 = np.floor(ix), np.floor(iy)
    we = ix - x0
    ea = cd.type(1) - we
    n = iy - y0
    s = cd.type(1) - n
    nw, ne, sw, se = s * ea, s * we, n * ea, n * we
    out = pick(y0, x0) * nw
    out = _fma(pick(y0, x0 + 1), ne, out, cd)
    out = _fma(pick(y0 + 1, x0), sw, out, cd)
    return _fma(pick(y0 + 1, x0 + 1), se, out, cd)


def _grid_transform(arr, matrix, interpolation, fill, ow, oh):
    dtype = arr.dtype
    cd = _compute_dtype(dtype)
    lead = arr.shape[:-3] if arr.ndim >= 3 else ()
    x = arr.reshape((-1,) + ((1,) if arr.ndim == 2 else arr.shape[-3:-2]) + arr.shape[-2:]).astype(cd)
    gx, gy = _affine_grid(matrix, arr.shape[-1], arr.shape[-2], ow, oh, cd)
    if fill is not None:
        x = np.concatenate([x, np.ones((x.shape[0], 1) + x.shape[2:], dtype=cd)], axis=1)
    out = _grid_sample(x, gx, gy, interpolation, cd)
    if fill is not None:
        mask, out = out[:, -1:], out[:, :-1]
        fills = list(fill) if isinstance(fill, (tuple, list)) else [float(fill)]
        fill_img = np.broadcast_to(np.asarray(fills, dtype=cd).reshape(1, -1, 1, 1), out.shape)
        mask = np.broadcast_to(mask, out.shape)
        if interpolation == "nearest":
            out = np.where(mask < cd.type(0.5), fill_img, out)
        else:
            out = out * mask + (cd.type(1.0) - mask) * fill_img
    out = _back_to(out, dtype)
    return out.reshape(lead + out.shape[1:]) if arr.ndim >= 3 else out.reshape(out.shape[-2:])


def affine(arr, matrix, interpolation="nearest", fill=None):
    _check_grid_inputs(arr, interpolation, fill)
    return _grid_transform(arr, matrix, interpolation, fill, arr.shape[-1], arr.shape[-2])


def _expanded_size(matrix, w, h):
    """``_compute_affine_output_size``: the rotated corners' bounding box (float32, 1e-4 truncation)."""
    f = np.float32
    pts = np.asarray([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0],
                      [0.5 * w, -0.5 * h, 1.0]], dtype=f)
    theta = np.asarray(matrix, dtype=f).reshape(2, 3)
    new = pts @ theta.T
    shift = np.asarray([w * 0.5, h * 0.5], dtype=f)
    lo, hi = new.min(axis=0) + shift, new.max(axis=0) + shift
    tol = f(1e-4)
    cmax = np.ceil(np.trunc(hi / tol) * tol)
    cmin = np.floor(np.trunc(lo / tol) * tol)
    size = cmax - cmin
    return int(size[0]), int(size[1])


def rotate(arr, matrix, interpolation="nearest", expand=False, fill=None):
    _check_grid_inputs(arr, interpolation, fill)
    w, h = arr.shape[-1], arr.shape[-2]
    ow, oh = _expanded_size(matrix, w, h) if expand else (w, h)
    return _grid_transform(arr, matrix, interpolation, fill, ow, oh)
