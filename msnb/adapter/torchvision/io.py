"""msnb implementation of ``torchvision.io``'s image functions, decoded and encoded with Pillow.

Images are ``uint8`` tensors of shape ``(C, H, W)`` as torchvision returns them
(16-bit PNGs, which torchvision reads as ``uint16``, raise: msnb has no ``uint16``); encoded files are 1-D ``uint8`` tensors.  The
colour conversions of the read modes follow torchvision's decoders: PNG
colour to gray is libpng's ``(9794 R + 19235 G + 3739 B) >> 15``, JPEG gray
is the decoder's own luma channel, gray to RGB repeats the channel and a
missing alpha channel is opaque.  Bad input raises ``RuntimeError`` as
torchvision does.  Video, GIF, WebP, AVIF and HEIC are not supported.
"""

from __future__ import annotations

import enum
import io as _pyio
import os

import numpy as np

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png", "read_file",
           "read_image", "write_file", "write_jpeg", "write_png"]


class ImageReadMode(enum.Enum):
    """msnb implementation of ``torchvision.io.ImageReadMode``."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_JPEG_SIG = b"\xff\xd8\xff"


def _torch():
    from .. import torch
    return torch


def _mode(mode):
    if isinstance(mode, str):
        try:
            return ImageReadMode[mode.upper()]
        except KeyError:
            raise ValueError(f"Unknown image read mode {mode!r}: expected one of "
                             f"{[m.name for m in ImageReadMode]}") from None
    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"mode must be an ImageReadMode or str, got {type(mode).__name__}")
    return mode


def _bytes_of(data, fn):
    torch = _torch()
    if not isinstance(data, torch.Tensor):
        raise TypeError(f"{fn}: expected a torch.Tensor of encoded bytes, got {type(data).__name__}")
    if data.dtype != torch.uint8:
        raise RuntimeError(f"{fn}: Expected a torch.uint8 tensor, got {data.dtype}")
    if data.ndim != 1:
        raise RuntimeError(f"{fn}: Expected a one dimensional tensor, got {data.ndim} dims")
    if data.numel() == 0:
        raise RuntimeError(f"{fn}: Expected a non empty tensor")
    return np.ascontiguousarray(data.detach().numpy()).tobytes()


def _tensor(arr):
    return _torch().from_numpy(np.ascontiguousarray(arr))


def read_file(path):
    """msnb implementation of ``torchvision.io.read_file``: the file's bytes as a 1-D uint8 tensor."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise RuntimeError(f"read_file: {e}") from None
    if not raw:
        raise RuntimeError(f"read_file: Expected a non empty file: {path}")
    return _tensor(np.frombuffer(raw, np.uint8).copy())


def write_file(filename, data):
    """msnb implementation of ``torchvision.io.write_file``: writes a 1-D uint8 tensor's bytes."""
    raw = _bytes_of(data, "write_file")
    with open(os.fspath(filename), "wb") as f:
        f.write(raw)


def _open(raw, fn, kind):
    from PIL import Image, UnidentifiedImageError

    try:
        img = Image.open(_pyio.BytesIO(raw))
        if kind is not None and img.format != kind:
            raise RuntimeError(f"{fn}: Content is not {kind.lower()}!")
        if img.format == "JPEG":
            return img
        img.load()
        return img
    except UnidentifiedImageError:
        raise RuntimeError(f"{fn}: Unsupported image file. Only jpeg and png are supported by msnb") from None
    except (OSError, SyntaxError, ValueError) as e:
        raise RuntimeError(f"{fn}: Image is incomplete or truncated ({e})") from None


def _png_gray(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    gray = (r * 9794 + g * 19235 + b * 3739) >> 15
    return gray.astype(rgb.dtype)


def _decode(raw, mode, fn, kind=None):
    mode = _mode(mode)
    img = _open(raw, fn, kind)
    if img.format == "JPEG":
        if mode in (ImageReadMode.GRAY_ALPHA, ImageReadMode.RGB_ALPHA):
            raise RuntimeError(f"{fn}: The provided mode is not supported for JPEG files")
        if mode is ImageReadMode.GRAY:
            img.draft("L", img.size)  # the decoder's luma channel, as libjpeg's grayscale output
        try:
            img.load()
        except (OSError, SyntaxError, ValueError) as e:
            raise RuntimeError(f"{fn}: Image is incomplete or truncated ({e})") from None
        if img.mode == "CMYK" or mode is ImageReadMode.RGB or (mode is ImageReadMode.GRAY and img.mode != "L"):
            img = img.convert("L" if mode is ImageReadMode.GRAY else "RGB")
        arr = np.asarray(img)
    elif img.format == "PNG":
        arr = _png_array(img, mode)
    else:
        raise RuntimeError(f"{fn}: Unsupported image file ({img.format}). Only jpeg and png are supported by msnb")
    if arr.ndim == 2:
        arr = arr[..., None]
    return _tensor(np.transpose(arr, (2, 0, 1)))


def _png_array(img, mode):
    if img.mode.startswith("I") or img.info.get("bits", 8) > 8 or img.mode == "RGB;16":
        raise NotImplementedError("torchvision.io: 16-bit PNG images (torch.uint16) are not supported by msnb yet "
                                  "(see the support list: python -m msnb.adapter.support --markdown)")
    if img.mode == "P":
        if mode is ImageReadMode.UNCHANGED:
            return np.asarray(img)  # the palette indices, as torchvision
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
    elif img.mode not in ("L", "LA", "RGB", "RGBA"):
        img = img.convert("RGBA" if "A" in img.mode else "RGB")
    arr = np.asarray(img)
    alpha_max = 255
    if arr.ndim == 2:
        arr = arr[..., None]
    c = arr.shape[-1]
    color, alpha = arr[..., : (3 if c >= 3 else 1)], arr[..., c - 1:] if c in (2, 4) else None
    if mode is ImageReadMode.UNCHANGED:
        return arr
    if mode in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA):
        color = _png_gray(color)[..., None] if color.shape[-1] == 3 else color
    elif color.shape[-1] == 1:
        color = np.repeat(color, 3, axis=-1)
    if mode in (ImageReadMode.GRAY, ImageReadMode.RGB):
        return color
    if alpha is None:
        alpha = np.full(color.shape[:-1] + (1,), alpha_max, color.dtype)
    return np.concatenate([color, alpha], axis=-1)


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """msnb implementation of ``torchvision.io.decode_image`` (PNG and JPEG; ``input`` bytes tensor or path)."""
    if isinstance(input, (str, os.PathLike)):
        input = read_file(input)
    img = _decode(_bytes_of(input, "decode_image"), mode, "decode_image")
    return _exif(img, input, apply_exif_orientation)


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """msnb implementation of ``torchvision.io.read_image``: a (C, H, W) uint8 tensor."""
    return decode_image(read_file(path), mode, apply_exif_orientation)


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """msnb implementation of ``torchvision.io.decode_png``."""
    img = _decode(_bytes_of(input, "decode_png"), mode, "decode_png", "PNG")
    return _exif(img, input, apply_exif_orientation)


def decode_jpeg(input, mode=ImageReadMode.UNCHANGED, device="cpu", apply_exif_orientation=False):
    """msnb implementation of ``torchvision.io.decode_jpeg`` (a tensor or a list of tensors)."""
    if str(device) != "cpu":
        raise NotImplementedError("torchvision.io.decode_jpeg on a GPU device is not supported by msnb yet "
                                  "(see the support list: python -m msnb.adapter.support --markdown)")
    if isinstance(input, (list, tuple)):
        return [decode_jpeg(x, mode, device, apply_exif_orientation) for x in input]
    img = _decode(_bytes_of(input, "decode_jpeg"), mode, "decode_jpeg", "JPEG")
    return _exif(img, input, apply_exif_orientation)


def _exif(img, data, apply):
    if not apply:
        return img
    from PIL import Image
    orient = Image.open(_pyio.BytesIO(_bytes_of(data, "decode_image"))).getexif().get(0x0112, 1)
    ops = {2: lambda a: a.flip(-1), 3: lambda a: a.flip(-1).flip(-2), 4: lambda a: a.flip(-2),
           5: lambda a: a.transpose(-1, -2), 6: lambda a: a.transpose(-1, -2).flip(-1),
           7: lambda a: a.transpose(-1, -2).flip(-1).flip(-2), 8: lambda a: a.transpose(-1, -2).flip(-2)}
    return ops[orient](img).contiguous() if orient in ops else img


def _image_array(input, fn, channels):
    torch = _torch()
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"{fn}: expected a torch.Tensor image, got {type(input).__name__}")
    if input.dtype != torch.uint8:
        raise RuntimeError(f"{fn}: Input tensor dtype should be uint8")
    if input.ndim != 3:
        raise RuntimeError(f"{fn}: Input data should be a 3-dimensional tensor, got {input.ndim} dims")
    if input.shape[0] not in channels:
        raise RuntimeError(f"{fn}: The number of channels should be {' or '.join(map(str, channels))}, "
                           f"got: {input.shape[0]}")
    arr = np.transpose(input.detach().numpy(), (1, 2, 0))
    return np.ascontiguousarray(arr[..., 0] if arr.shape[-1] == 1 else arr)


def _encode(arr, fmt, **opts):
    from PIL import Image
    buf = _pyio.BytesIO()
    Image.fromarray(arr).save(buf, format=fmt, **opts)
    return _tensor(np.frombuffer(buf.getvalue(), np.uint8).copy())


def encode_png(input, compression_level=6):
    """msnb implementation of ``torchvision.io.encode_png``: a 1-D uint8 tensor of PNG bytes."""
    if not 0 <= compression_level <= 9:
        raise RuntimeError("encode_png: Compression level should be between 0 and 9")
    return _encode(_image_array(input, "encode_png", (1, 3)), "PNG", compress_level=int(compression_level))


def write_png(input, filename, compression_level=6):
    """msnb implementation of ``torchvision.io.write_png``."""
    write_file(filename, encode_png(input, compression_level))


def encode_jpeg(input, quality=75):
    """msnb implementation of ``torchvision.io.encode_jpeg`` (a tensor or a list of tensors)."""
    if not 1 <= quality <= 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, (list, tuple)):
        return [encode_jpeg(x, quality) for x in input]
    return _encode(_image_array(input, "encode_jpeg", (1, 3)), "JPEG", quality=int(quality))


def write_jpeg(input, filename, quality=75):
    """msnb implementation of ``torchvision.io.write_jpeg``."""
    write_file(filename, encode_jpeg(input, quality))
