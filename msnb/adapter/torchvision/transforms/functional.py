"""msnb implementation of ``torchvision.transforms.functional`` (v1 API).

PIL images go through PIL exactly as torchvision does (same calls, same
filters), so results are bit-identical to torchvision's PIL path.

Tensors (``msnb.adapter.torch.Tensor``, CHW or ...CHW) are processed on the
host with numpy and returned as adapter tensors:

* ``resize`` on a tensor resizes every channel as a PIL ``"F"`` (float) image
  with the PIL filter of the chosen mode.  With ``antialias=True`` (the
  default) that is the same separable antialiased filter torchvision's tensor
  path uses for BILINEAR; BICUBIC uses PIL's cubic (a=-0.5, torchvision's
  tensor path uses a=-0.75), so values can differ slightly.  NEAREST uses
  torchvision's tensor rule ``src = floor(dst * in / out)``.  Integer tensors
  are rounded and clamped back to their dtype.
* ``rotate`` / ``affine`` on a tensor follow torchvision's tensor path: the
  inverse affine matrix, its sampling grid and ``grid_sample`` (nearest or
  bilinear, zero padding, ``fill`` through an extra mask channel), with
  PyTorch's fused multiply-adds; posterize / solarize / autocontrast /
  equalize / adjust_sharpness / invert are torchvision's tensor formulas
  (``_tensor_ops``).  uint8 results are torchvision's bit for bit.
* colour adjustments on tensors follow torchvision's tensor formulas
  (``_blend``, ``rgb_to_grayscale`` weights 0.2989/0.587/0.114, HSV hue shift).
"""

from __future__ import annotations

import numbers
import sys
from enum import Enum

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

from . import _tensor_ops as _ops

__all__ = [
    "InterpolationMode", "to_tensor", "pil_to_tensor", "to_pil_image", "convert_image_dtype", "normalize",
    "resize", "center_crop", "crop", "resized_crop", "pad", "hflip", "vflip", "rotate", "adjust_brightness",
    "adjust_contrast", "adjust_saturation", "adjust_hue", "rgb_to_grayscale", "to_grayscale",
    "get_image_size", "get_image_num_channels", "get_dimensions", "five_crop", "ten_crop", "invert",
    "affine", "posterize", "solarize", "adjust_sharpness", "autocontrast", "equalize",
]


class InterpolationMode(Enum):
    """Interpolation modes, as in ``torchvision.transforms.InterpolationMode``."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_PIL_FILTERS = {
    InterpolationMode.NEAREST: Image.NEAREST,
    InterpolationMode.NEAREST_EXACT: Image.NEAREST,
    InterpolationMode.BILINEAR: Image.BILINEAR,
    InterpolationMode.BICUBIC: Image.BICUBIC,
    InterpolationMode.BOX: Image.BOX,
    InterpolationMode.HAMMING: Image.HAMMING,
    InterpolationMode.LANCZOS: Image.LANCZOS,
}

_INT_TO_MODE = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
                4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}


def _interpolation_modes_from_int(i):
    return _INT_TO_MODE[i]


def _as_mode(interpolation):
    if isinstance(interpolation, InterpolationMode):
        return interpolation
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if isinstance(interpolation, str):
        return InterpolationMode(interpolation)
    raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer constant")


# --- type helpers ---------------------------------------------------------------------------------
def _torch():
    import msnb.adapter.torch as torch
    return torch


def _is_pil_image(img):
    return isinstance(img, Image.Image)


def _is_tensor(x):
    import mindspore
    return isinstance(x, mindspore.Tensor)


def _np(t):
    return np.asarray(t.numpy())


def _tensor(arr, like=None):
    torch = _torch()
    arr = np.ascontiguousarray(arr)
    if like is not None and str(arr.dtype) != str(_np_dtype(like)):
        arr = arr.astype(_np_dtype(like))
    return torch.from_numpy(arr)


def _np_dtype(t):
    d = t.dtype
    return getattr(d, "numpy", None) or np.asarray(t.numpy()).dtype


def _check_img(img):
    if not (_is_pil_image(img) or _is_tensor(img)):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")


def _max_value(np_dtype):
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.bool_:
        return 1
    if np.issubdtype(np_dtype, np.integer):
        return np.iinfo(np_dtype).max
    return 1.0


def get_dimensions(img):
    """Returns ``[channels, height, width]``."""
    if _is_tensor(img):
        shape = tuple(img.shape)
        channels = 1 if len(shape) == 2 else shape[-3]
        return [channels, shape[-2], shape[-1]]
    if _is_pil_image(img):
        width, height = img.size
        return [get_image_num_channels(img), height, width]
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_size(img):
    """Returns ``[width, height]``."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    if _is_tensor(img):
        return get_dimensions(img)[0]
    if _is_pil_image(img):
        if hasattr(img, "getbands"):
            return len(img.getbands())
        return img.channels
    raise TypeError(f"Unexpected type {type(img)}")


# --- conversions ----------------------------------------------------------------------------------
_MODE_TO_NPTYPE = {"I": np.int32, "I;16" if sys.byteorder == "little" else "I;16B": np.int16, "F": np.float32}


def to_tensor(pic):
    """PIL Image or ndarray (HWC) to tensor (CHW); uint8 is scaled to float in [0, 1]."""
    torch = _torch()
    if not (_is_pil_image(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray):
        if pic.ndim not in {2, 3}:
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        if pic.ndim == 2:
            pic = pic[:, :, None]
        arr = np.ascontiguousarray(pic.transpose((2, 0, 1)))
    else:
        arr = np.array(pic, _MODE_TO_NPTYPE.get(pic.mode, np.uint8), copy=True)
        if pic.mode == "1":
            arr = 255 * arr
        arr = arr.reshape(pic.size[1], pic.size[0], get_image_num_channels(pic)).transpose((2, 0, 1))
    if arr.dtype == np.uint8:
        fdt = np.dtype(torch.get_default_dtype().numpy)
        return _tensor(arr.astype(fdt) / fdt.type(255))
    return _tensor(arr)


def pil_to_tensor(pic):
    """PIL Image to tensor (CHW) without scaling."""
    if not _is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic, _MODE_TO_NPTYPE.get(pic.mode, np.uint8), copy=True)
    arr = arr.reshape(pic.size[1], pic.size[0], get_image_num_channels(pic)).transpose((2, 0, 1))
    return _tensor(arr)


def to_pil_image(pic, mode=None):
    """Tensor (CHW) or ndarray (HWC) to PIL Image; floats are multiplied by 255 and cast to uint8."""
    if _is_tensor(pic):
        arr = _np(pic)
        if arr.ndim == 3:
            arr = arr.transpose((1, 2, 0))
    elif isinstance(pic, np.ndarray):
        arr = pic
    else:
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if arr.ndim == 2:
        arr = np.expand_dims(arr, 2)
    if arr.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {arr.ndim} dimensions.")
    if arr.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {arr.shape[-1]} channels.")
    npimg = arr
    if np.issubdtype(npimg.dtype, np.floating) and mode != "F":
        npimg = (npimg * 255).astype(np.uint8)
    if npimg.shape[2] == 1:
        expected_mode = None
        npimg = npimg[:, :, 0]
        if npimg.dtype == np.uint8:
            expected_mode = "L"
        elif npimg.dtype == np.int16:
            expected_mode = "I;16"
        elif npimg.dtype == np.int32:
            expected_mode = "I"
        elif npimg.dtype == np.float32:
            expected_mode = "F"
        if mode is not None and mode != expected_mode:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {np.dtype}. Should be {expected_mode}")
        mode = expected_mode
    elif npimg.shape[2] == 2:
        if mode is not None and mode not in ["LA"]:
            raise ValueError("Only modes ['LA'] are supported for 2D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = "LA"
    elif npimg.shape[2] == 4:
        if mode is not None and mode not in ["RGBA", "CMYK", "RGBX"]:
            raise ValueError("Only modes ['RGBA', 'CMYK', 'RGBX'] are supported for 4D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = "RGBA"
    else:
        if mode is not None and mode not in ["RGB", "YCbCr", "HSV"]:
            raise ValueError("Only modes ['RGB', 'YCbCr', 'HSV'] are supported for 3D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = "RGB"
    if mode is None:
        raise TypeError(f"Input type {npimg.dtype} is not supported")
    return Image.fromarray(np.ascontiguousarray(npimg), mode=mode)


def convert_image_dtype(image, dtype=None):
    """Convert a tensor image to ``dtype``, rescaling values as torchvision does."""
    torch = _torch()
    if dtype is None:
        dtype = torch.float32
    if not _is_tensor(image):
        raise TypeError("Input img should be Tensor Image")
    arr = _np(image)
    src = arr.dtype
    dst = np.dtype(dtype.numpy)
    if src == dst:
        return image
    src_float = np.issubdtype(src, np.floating)
    dst_float = np.issubdtype(dst, np.floating)
    if src_float:
        if dst_float:
            return _tensor(arr.astype(dst))
        if (src == np.float32 and dst in (np.int32, np.int64)) or (src == np.float64 and dst == np.int64):
            raise RuntimeError(f"The cast from {src} to {dst} cannot be performed safely.")
        eps = 1e-3
        max_val = float(_max_value(dst))
        return _tensor((arr * src.type(max_val + 1.0 - eps)).astype(dst))
    max_in = _max_value(src)
    if dst_float:
        return _tensor(arr.astype(dst) / dst.type(max_in))
    max_out = _max_value(dst)
    if max_in > max_out:
        factor = int((max_in + 1) // (max_out + 1))
        return _tensor((arr // factor).astype(dst))
    factor = int((max_out + 1) // (max_in + 1))
    return _tensor(arr.astype(dst) * dst.type(factor))


def normalize(tensor, mean, std, inplace=False):
    """``(tensor - mean) / std`` per channel of a float tensor image."""
    if not _is_tensor(tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    arr = _np(tensor)
    if not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"Input tensor should be a float tensor. Got {arr.dtype}.")
    if arr.ndim < 3:
        raise ValueError(f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = {tuple(arr.shape)}")
    mean_a = np.asarray(mean.numpy() if _is_tensor(mean) else mean, dtype=arr.dtype)
    std_a = np.asarray(std.numpy() if _is_tensor(std) else std, dtype=arr.dtype)
    if (std_a == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {arr.dtype}, leading to division by zero.")
    if mean_a.ndim == 1:
        mean_a = mean_a.reshape(-1, 1, 1)
    if std_a.ndim == 1:
        std_a = std_a.reshape(-1, 1, 1)
    out = _tensor((arr - mean_a) / std_a)
    if inplace:
        tensor.copy_(out)
        return tensor
    return out


# --- geometry -------------------------------------------------------------------------------------
def _compute_resized_output_size(image_size, size, max_size=None):
    h, w = image_size
    if size is None or len(size) == 1:
        short, long = (w, h) if w <= h else (h, w)
        if size is None:
            new_short = short
        else:
            new_short = size[0]
        new_long = int(new_short * long / short)
        if max_size is not None:
            if max_size <= new_short:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for the "
                                 f"smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    else:
        if max_size is not None:
            raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, "
                             "i.e. size should be an int or a sequence of length 1 in torchscript mode.")
        new_h, new_w = size
    return [int(new_h), int(new_w)]


def _channels_apply(arr, fn):
    """Apply ``fn`` (2-D float32 array -> 2-D array) to every HxW plane of a ...HW array."""
    lead = arr.shape[:-2]
    flat = arr.reshape((-1,) + arr.shape[-2:])
    outs = [fn(p) for p in flat]
    out = np.stack(outs) if outs else np.zeros((0, 1, 1), np.float32)
    return out.reshape(lead + out.shape[-2:])


def _restore_dtype(out, dtype):
    if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
        info = np.iinfo(dtype) if dtype != np.bool_ else None
        out = np.round(out)
        if info is not None:
            out = np.clip(out, info.min, info.max)
    return out.astype(dtype)


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to ``size`` (int: smaller edge; (h, w): exact)."""
    interpolation = _as_mode(interpolation)
    if isinstance(size, numbers.Number):
        size = [int(size)]
    elif isinstance(size, (list, tuple)):
        size = list(size)
    elif size is not None:
        raise TypeError(f"Size should be int or sequence. Got {type(size)}")
    if size is not None and len(size) not in (1, 2):
        raise ValueError(f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element tuple/list")
    _, image_height, image_width = get_dimensions(img)
    output_size = _compute_resized_output_size((image_height, image_width), size, max_size)
    if [image_height, image_width] == output_size:
        return img
    if _is_pil_image(img):
        if antialias is False:
            import warnings
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
        return img.resize(tuple(output_size[::-1]), _PIL_FILTERS[interpolation])
    _check_img(img)
    arr = _np(img)
    dtype = arr.dtype
    oh, ow = output_size
    if interpolation in (InterpolationMode.NEAREST, InterpolationMode.NEAREST_EXACT):
        ih, iw = arr.shape[-2:]
        if interpolation is InterpolationMode.NEAREST:
            ys = np.minimum(np.floor(np.arange(oh) * (ih / oh)).astype(np.int64), ih - 1)
            xs = np.minimum(np.floor(np.arange(ow) * (iw / ow)).astype(np.int64), iw - 1)
        else:
            ys = np.minimum(np.floor((np.arange(oh) + 0.5) * (ih / oh)).astype(np.int64), ih - 1)
            xs = np.minimum(np.floor((np.arange(ow) + 0.5) * (iw / ow)).astype(np.int64), iw - 1)
        return _tensor(arr[..., ys[:, None], xs[None, :]])
    flt = _PIL_FILTERS[interpolation]

    def one(plane):
        return np.asarray(Image.fromarray(plane.astype(np.float32), mode="F").resize((ow, oh), flt))

    out = _channels_apply(arr, one)
    return _tensor(_restore_dtype(out, dtype))


def crop(img, top, left, height, width):
    """Crop the box ``(top, left, height, width)``; regions outside the image are zero-padded."""
    if _is_pil_image(img):
        return img.crop((left, top, left + width, top + height))
    _check_img(img)
    arr = _np(img)
    h, w = arr.shape[-2:]
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        pads = [(0, 0)] * (arr.ndim - 2) + [(max(-top, 0), max(bottom - h, 0)), (max(-left, 0), max(right - w, 0))]
        arr = arr[..., max(top, 0):min(bottom, h), max(left, 0):min(right, w)]
        return _tensor(np.pad(arr, pads, mode="constant"))
    return _tensor(arr[..., top:bottom, left:right])


def _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size."):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


def center_crop(img, output_size):
    """Crop the centre; pads with zeros first when the crop is larger than the image."""
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = output_size
    if crop_width > image_width or crop_height > image_height:
        padding_ltrb = [
            (crop_width - image_width) // 2 if crop_width > image_width else 0,
            (crop_height - image_height) // 2 if crop_height > image_height else 0,
            (crop_width - image_width + 1) // 2 if crop_width > image_width else 0,
            (crop_height - image_height + 1) // 2 if crop_height > image_height else 0,
        ]
        img = pad(img, padding_ltrb, fill=0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    img = crop(img, top, left, height, width)
    return resize(img, size, interpolation, antialias=antialias)


def _parse_padding(padding):
    if isinstance(padding, numbers.Number):
        padding = [int(padding)]
    padding = list(padding)
    if len(padding) not in (1, 2, 4):
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding  # left, top, right, bottom


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad by ``padding`` (int, (lr, tb) or (l, t, r, b)) with ``padding_mode`` constant/edge/reflect/symmetric."""
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    pl, pt, pr, pb = _parse_padding(padding)
    if fill is None:
        fill = 0
    if _is_pil_image(img):
        if padding_mode == "constant":
            if isinstance(fill, (tuple, list)) and len(fill) == 1:
                fill = fill[0]
            if isinstance(fill, list):
                fill = tuple(fill)
            if img.mode == "P":
                palette = img.getpalette()
                image = ImageOps.expand(img, border=(pl, pt, pr, pb), fill=fill)
                image.putpalette(palette)
                return image
            if min(pl, pt, pr, pb) < 0:
                w, h = img.size
                img = img.crop((max(-pl, 0), max(-pt, 0), w - max(-pr, 0), h - max(-pb, 0)))
                pl, pt, pr, pb = max(pl, 0), max(pt, 0), max(pr, 0), max(pb, 0)
            return ImageOps.expand(img, border=(pl, pt, pr, pb), fill=fill)
        palette = img.getpalette() if img.mode == "P" else None
        arr = np.asarray(img)
        crop_top, crop_left = -min(pt, 0), -min(pl, 0)
        crop_bottom, crop_right = -min(pb, 0), -min(pr, 0)
        arr = arr[crop_top:arr.shape[0] - crop_bottom, crop_left:arr.shape[1] - crop_right]
        pt, pl, pb, pr = max(pt, 0), max(pl, 0), max(pb, 0), max(pr, 0)
        width = ((pt, pb), (pl, pr)) + (((0, 0),) if arr.ndim == 3 else ())
        out = Image.fromarray(np.pad(arr, width, mode=padding_mode))
        if palette is not None:
            out.putpalette(palette)
        return out
    _check_img(img)
    arr = _np(img)
    h, w = arr.shape[-2:]
    arr = arr[..., max(-pt, 0):h - max(-pb, 0), max(-pl, 0):w - max(-pr, 0)]
    pt, pl, pb, pr = max(pt, 0), max(pl, 0), max(pb, 0), max(pr, 0)
    width = [(0, 0)] * (arr.ndim - 2) + [(pt, pb), (pl, pr)]
    if padding_mode == "constant":
        if isinstance(fill, (tuple, list)):
            if len(fill) != 1:
                # per-channel fill
                out = np.stack([np.pad(arr[..., c, :, :], width[:-3] + width[-2:], mode="constant",
                                       constant_values=fill[c]) for c in range(arr.shape[-3])], axis=-3)
                return _tensor(out.astype(arr.dtype))
            fill = fill[0]
        return _tensor(np.pad(arr, width, mode="constant", constant_values=fill).astype(arr.dtype))
    return _tensor(np.pad(arr, width, mode=padding_mode))


def hflip(img):
    if _is_pil_image(img):
        return img.transpose(Image.FLIP_LEFT_RIGHT)
    _check_img(img)
    return _tensor(_np(img)[..., ::-1])


def vflip(img):
    if _is_pil_image(img):
        return img.transpose(Image.FLIP_TOP_BOTTOM)
    _check_img(img)
    return _tensor(_np(img)[..., ::-1, :])


def five_crop(img, size):
    size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = size
    if crop_width > image_width or crop_height > image_height:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(image_height, image_width)}")
    tl = crop(img, 0, 0, crop_height, crop_width)
    tr = crop(img, 0, image_width - crop_width, crop_height, crop_width)
    bl = crop(img, image_height - crop_height, 0, crop_height, crop_width)
    br = crop(img, image_height - crop_height, image_width - crop_width, crop_height, crop_width)
    center = center_crop(img, [crop_height, crop_width])
    return tl, tr, bl, br, center


def ten_crop(img, size, vertical_flip=False):
    first_five = five_crop(img, size)
    img = vflip(img) if vertical_flip else hflip(img)
    return first_five + five_crop(img, size)


def _parse_fill(fill, img, name="fillcolor"):
    """torchvision's PIL fill: a number or a per-band sequence, ints unless the image is mode ``F``."""
    num_channels = get_image_num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and num_channels > 1:
        fill = tuple([fill] * num_channels)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = fill * num_channels
        elif len(fill) != num_channels:
            raise ValueError("The number of elements in 'fill' does not match the number of channels of the image "
                             f"({len(fill)} != {num_channels})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, (list, tuple)) else int(fill)
    return {name: fill}


def _check_interpolation_arg(interpolation):
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer "
                        "constant")
    return interpolation


def _tensor_center(img, center):
    """A pixel centre as an offset from the image centre (torchvision's tensor convention)."""
    if center is None:
        return [0.0, 0.0]
    _, height, width = get_dimensions(img)
    return [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    """Rotate by ``angle`` degrees counter-clockwise: PIL ``Image.rotate`` for images, torchvision's
    affine grid + ``grid_sample`` (nearest / bilinear) for tensors."""
    interpolation = _check_interpolation_arg(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if _is_pil_image(img):
        return img.rotate(angle, _PIL_FILTERS[interpolation], expand, center, **_parse_fill(fill, img))
    _check_img(img)
    matrix = _ops.inverse_affine_matrix(_tensor_center(img, center), -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return _tensor(_ops.rotate(_np(img), matrix, interpolation.value, expand, fill))


def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """Rotate (clockwise degrees), translate, scale and shear about the centre (or ``center``), as torchvision:
    PIL ``Image.transform(AFFINE)`` for images, the affine grid + ``grid_sample`` for tensors."""
    interpolation = _check_interpolation_arg(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    angle = float(angle) if isinstance(angle, int) else angle
    translate = list(translate)
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    _, height, width = get_dimensions(img)
    if _is_pil_image(img):
        if center is None:
            center = [width * 0.5, height * 0.5]
        matrix = _ops.inverse_affine_matrix(center, angle, translate, scale, shear)
        return img.transform(img.size, Image.AFFINE, matrix, _PIL_FILTERS[interpolation], **_parse_fill(fill, img))
    _check_img(img)
    matrix = _ops.inverse_affine_matrix(_tensor_center(img, center), angle, [1.0 * t for t in translate], scale,
                                        shear)
    return _tensor(_ops.affine(_np(img), matrix, interpolation.value, fill))


# --- colour ---------------------------------------------------------------------------------------
def _gray_np(arr):
    r, g, b = arr[..., 0, :, :], arr[..., 1, :, :], arr[..., 2, :, :]
    return (0.2989 * r + 0.587 * g + 0.114 * b)


def rgb_to_grayscale(img, num_output_channels=1):
    """Convert RGB to grayscale (PIL: ``convert('L')``; tensor: 0.2989 R + 0.587 G + 0.114 B)."""
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if _is_pil_image(img):
        if img.mode == "L" and num_output_channels == 1:
            return img
        img = img.convert("L")
        if num_output_channels == 3:
            np_img = np.array(img, dtype=np.uint8)
            img = Image.fromarray(np.dstack([np_img, np_img, np_img]), "RGB")
        return img
    _check_img(img)
    arr = _np(img)
    c = arr.shape[-3]
    if c == 1:
        gray = arr
    elif c == 3:
        g = _gray_np(arr.astype(np.float32) if arr.dtype != np.float64 else arr)
        gray = np.expand_dims(g.astype(arr.dtype), -3)
    else:
        raise TypeError(f"Input image tensor permitted channel values are [1, 3], but found {c}")
    if num_output_channels == 3:
        gray = np.repeat(gray, 3, axis=-3) if gray.shape[-3] == 1 else gray
    return _tensor(gray)


to_grayscale = rgb_to_grayscale


def _blend(img1, img2, ratio, dtype):
    bound = float(_max_value(dtype))
    out = np.clip(ratio * img1 + (1.0 - ratio) * img2, 0, bound)
    return out.astype(dtype)


def _float_view(arr):
    return arr.astype(np.float32) if not np.issubdtype(arr.dtype, np.floating) else arr


def adjust_brightness(img, brightness_factor):
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    if _is_pil_image(img):
        return ImageEnhance.Brightness(img).enhance(brightness_factor)
    arr = _np(img)
    return _tensor(_blend(_float_view(arr), 0.0, brightness_factor, arr.dtype))


def adjust_contrast(img, contrast_factor):
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    if _is_pil_image(img):
        return ImageEnhance.Contrast(img).enhance(contrast_factor)
    arr = _np(img)
    f = _float_view(arr)
    if arr.shape[-3] == 3:
        gray = _gray_np(f).astype(arr.dtype).astype(f.dtype)
    else:
        gray = f
    mean = gray.mean(axis=(-3, -2, -1), keepdims=True) if gray.ndim == f.ndim else \
        gray.mean(axis=(-2, -1), keepdims=True)[..., None, :, :]
    return _tensor(_blend(f, mean, contrast_factor, arr.dtype))


def adjust_saturation(img, saturation_factor):
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    if _is_pil_image(img):
        return ImageEnhance.Color(img).enhance(saturation_factor)
    arr = _np(img)
    if arr.shape[-3] == 1:
        return img
    f = _float_view(arr)
    gray = np.expand_dims(_gray_np(f).astype(arr.dtype).astype(f.dtype), -3)
    return _tensor(_blend(f, gray, saturation_factor, arr.dtype))


def _rgb2hsv(img):
    r, g, b = img[..., 0, :, :], img[..., 1, :, :], img[..., 2, :, :]
    maxc = img.max(axis=-3)
    minc = img.min(axis=-3)
    eqc = maxc == minc
    cr = maxc - minc
    ones = np.ones_like(maxc)
    s = cr / np.where(eqc, ones, maxc)
    cr_divisor = np.where(eqc, ones, cr)
    rc = (maxc - r) / cr_divisor
    gc = (maxc - g) / cr_divisor
    bc = (maxc - b) / cr_divisor
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = hr + hg + hb
    h = np.fmod((h / 6.0 + 1.0), 1.0)
    return np.stack((h, s, maxc), axis=-3)


def _hsv2rgb(img):
    h, s, v = img[..., 0, :, :], img[..., 1, :, :], img[..., 2, :, :]
    i = np.floor(h * 6.0)
    f = (h * 6.0) - i
    i = i.astype(np.int32)
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    i = i % 6
    mask = np.expand_dims(i, -3) == np.arange(6).reshape(-1, 1, 1)
    a1 = np.stack((v, q, p, p, t, v), axis=-3)
    a2 = np.stack((t, v, v, q, p, p), axis=-3)
    a3 = np.stack((p, p, t, v, v, q), axis=-3)
    a4 = np.stack((a1, a2, a3), axis=-4)
    return np.einsum("...ijk, ...xijk -> ...xjk", mask.astype(img.dtype), a4)


def adjust_hue(img, hue_factor):
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if _is_pil_image(img):
        input_mode = img.mode
        if input_mode in {"L", "1", "I", "F"}:
            return img
        h, s, v = img.convert("HSV").split()
        np_h = np.array(h, dtype=np.uint8)
        with np.errstate(over="ignore"):
            np_h += np.int32(hue_factor * 255).astype(np.uint8)
        h = Image.fromarray(np_h, "L")
        return Image.merge("HSV", (h, s, v)).convert(input_mode)
    arr = _np(img)
    if arr.shape[-3] == 1:
        return img
    dtype = arr.dtype
    f = arr.astype(np.float32) / 255.0 if not np.issubdtype(dtype, np.floating) else arr
    hsv = _rgb2hsv(f)
    hsv[..., 0, :, :] = np.fmod(hsv[..., 0, :, :] + hue_factor, 1.0)
    hsv[..., 0, :, :] = np.where(hsv[..., 0, :, :] < 0, hsv[..., 0, :, :] + 1.0, hsv[..., 0, :, :])
    out = _hsv2rgb(hsv)
    if not np.issubdtype(dtype, np.floating):
        out = (out * 255.0).astype(dtype)
    return _tensor(out.astype(dtype))


def _tensor_op(img, fn, *args):
    _check_img(img)
    return _tensor(fn(_np(img), *args))


def invert(img):
    """Invert colours: ``ImageOps.invert`` / ``max_value - img``."""
    if _is_pil_image(img):
        return ImageOps.invert(img)
    return _tensor_op(img, _ops.invert)


def posterize(img, bits):
    """Keep the ``bits`` high bits of each channel (uint8 tensors, L/RGB images)."""
    if not (0 <= bits <= 8):
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    if _is_pil_image(img):
        return ImageOps.posterize(img, bits)
    return _tensor_op(img, _ops.posterize, bits)


def solarize(img, threshold):
    """Invert every value at or above ``threshold``."""
    if _is_pil_image(img):
        return ImageOps.solarize(img, threshold)
    return _tensor_op(img, _ops.solarize, threshold)


def adjust_sharpness(img, sharpness_factor):
    """Blend with a smoothed copy: 0 blurs, 1 is the image, 2 doubles the sharpness."""
    if _is_pil_image(img):
        return ImageEnhance.Sharpness(img).enhance(sharpness_factor)
    return _tensor_op(img, _ops.adjust_sharpness, sharpness_factor)


def autocontrast(img):
    """Stretch each channel so its lowest value becomes 0 and its highest the dtype's maximum."""
    if _is_pil_image(img):
        return ImageOps.autocontrast(img)
    return _tensor_op(img, _ops.autocontrast)


def equalize(img):
    """Histogram-equalise each channel (uint8 tensors; P, L or RGB images)."""
    if _is_pil_image(img):
        return ImageOps.equalize(img)
    return _tensor_op(img, _ops.equalize)
