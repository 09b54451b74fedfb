"""msnb implementation of ``torchvision.utils``: ``make_grid`` and ``save_image`` (computed with numpy)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["make_grid", "save_image"]


def _to_np(tensor):
    import mindspore

    if isinstance(tensor, (list, tuple)):
        return np.stack([_to_np(t) for t in tensor], axis=0)
    if isinstance(tensor, mindspore.Tensor):  # torchvision runs these under no_grad: values only
        detach = getattr(tensor, "detach", None)
        return np.asarray((detach() if detach is not None else tensor).numpy())
    if isinstance(tensor, np.ndarray):
        return tensor
    raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")


def _make_grid_np(arr, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim == 3:
        if arr.shape[0] == 1:
            arr = np.concatenate((arr, arr, arr), 0)
        arr = arr[None]
    if arr.ndim == 4 and arr.shape[1] == 1:
        arr = np.concatenate((arr, arr, arr), 1)
    if normalize is True:
        arr = arr.copy()
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")

        def norm_ip(img, low, high):
            np.clip(img, low, high, out=img)
            img -= low
            img /= max(high - low, 1e-5)

        def norm_range(t, value_range):
            if value_range is not None:
                norm_ip(t, value_range[0], value_range[1])
            else:
                norm_ip(t, float(t.min()), float(t.max()))

        if not np.issubdtype(arr.dtype, np.floating):
            arr = arr.astype(np.float32)
        if scale_each is True:
            for t in arr:
                norm_range(t, value_range)
        else:
            norm_range(arr, value_range)
    if arr.shape[0] == 1:
        return arr[0]
    nmaps = arr.shape[0]
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = int(arr.shape[2] + padding), int(arr.shape[3] + padding)
    num_channels = arr.shape[1]
    grid = np.full((num_channels, height * ymaps + padding, width * xmaps + padding), pad_value, dtype=arr.dtype)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= nmaps:
                break
            grid[:, y * height + padding: y * height + padding + height - padding,
                 x * width + padding: x * width + padding + width - padding] = arr[k]
            k += 1
    return grid


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0,
              **kwargs):
    """Arrange a (B x C x H x W) tensor or a list of images into a grid (C x H' x W'), as torchvision does."""
    from msnb.adapter import torch

    if "range" in kwargs:
        value_range = kwargs["range"]
    grid = _make_grid_np(_to_np(tensor), nrow, padding, normalize, value_range, scale_each, pad_value)
    return torch.from_numpy(np.ascontiguousarray(grid))


def save_image(tensor, fp, format=None, **kwargs):
    """Save a tensor (or list) as an image file through PIL, via :func:`make_grid`."""
    from PIL import Image

    if "range" in kwargs:
        kwargs["value_range"] = kwargs.pop("range")
    grid = _make_grid_np(_to_np(tensor), **kwargs)
    ndarr = np.clip(grid * 255 + 0.5, 0, 255).transpose(1, 2, 0).astype(np.uint8)
    im = Image.fromarray(ndarr)
    im.save(fp, format=format)
