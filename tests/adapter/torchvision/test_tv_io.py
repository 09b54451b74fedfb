"""``torchvision.io`` on msnb: real PNG / JPEG decoding and encoding with Pillow on small images the tests
write.  PNG round-trips exactly; JPEG is compared with Pillow's own decode.  Shapes, dtypes and the read
modes follow torchvision (colour PNG to gray is libpng's fixed-point luma, JPEG gray is the decoder's luma
channel, gray to RGB repeats the channel, a missing alpha is opaque; values measured against real
torchvision 0.29 by hand); bad input raises ``RuntimeError`` as torchvision does."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import msnb.adapter.torch as mt
from msnb.adapter.torchvision import io

rng = np.random.default_rng(5)
RGB = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
RGBA = np.dstack([RGB, rng.integers(0, 256, (5, 7, 1), dtype=np.uint8)])
M = io.ImageReadMode


def _chw(a):
    return np.transpose(a if a.ndim == 3 else a[..., None], (2, 0, 1))


def _libpng_gray(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((r * 9794 + g * 19235 + b * 3739) >> 15).astype(np.uint8)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("img")
    Image.fromarray(RGB).save(d / "rgb.png")
    Image.fromarray(RGBA).save(d / "rgba.png")
    Image.fromarray(RGB[..., 0]).save(d / "l.png")
    Image.fromarray(RGB).save(d / "rgb.jpg", quality=90)
    Image.fromarray(RGB[..., 0]).save(d / "l.jpg")
    return d


def test_read_file_and_write_file_round_trip(files, tmp_path):
    data = io.read_file(str(files / "rgb.png"))
    assert str(data.dtype) == "torch.uint8" and data.ndim == 1
    assert data.numpy().tobytes() == (files / "rgb.png").read_bytes()
    io.write_file(str(tmp_path / "copy.png"), data)
    assert (tmp_path / "copy.png").read_bytes() == (files / "rgb.png").read_bytes()


@pytest.mark.parametrize("mode,expected", [
    (M.UNCHANGED, RGB), (M.RGB, RGB), (M.GRAY, _libpng_gray(RGB)),
    (M.GRAY_ALPHA, np.dstack([_libpng_gray(RGB), np.full((5, 7), 255, np.uint8)])),
    (M.RGB_ALPHA, np.dstack([RGB, np.full((5, 7), 255, np.uint8)]))])
def test_read_image_png_modes(files, mode, expected):
    t = io.read_image(str(files / "rgb.png"), mode)
    assert str(t.dtype) == "torch.uint8"
    np.testing.assert_array_equal(t.numpy(), _chw(expected))


def test_png_alpha_gray_and_string_modes(files):
    np.testing.assert_array_equal(io.read_image(str(files / "rgba.png")).numpy(), _chw(RGBA))
    np.testing.assert_array_equal(io.read_image(str(files / "rgba.png"), M.RGB).numpy(), _chw(RGB))
    np.testing.assert_array_equal(io.read_image(str(files / "rgba.png"), M.GRAY_ALPHA).numpy(),
                                  _chw(np.dstack([_libpng_gray(RGB), RGBA[..., 3]])))
    gray = RGB[..., 0]
    np.testing.assert_array_equal(io.read_image(str(files / "l.png")).numpy(), _chw(gray))
    np.testing.assert_array_equal(io.read_image(str(files / "l.png"), "rgb").numpy(),
                                  _chw(np.dstack([gray] * 3)))
    assert [m.value for m in M] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="read mode"):
        io.read_image(str(files / "l.png"), "cmyk")


def test_jpeg_matches_pillows_decode(files):
    for name in ("rgb.jpg", "l.jpg"):
        pil = np.asarray(Image.open(files / name))
        data = io.read_file(str(files / name))
        for got in (io.read_image(str(files / name)), io.decode_jpeg(data), io.decode_image(data),
                    io.decode_jpeg([data])[0]):
            np.testing.assert_array_equal(got.numpy(), _chw(pil))
    img = Image.open(files / "rgb.jpg")
    img.draft("L", img.size)  # the decoder's luma channel
    np.testing.assert_array_equal(io.read_image(str(files / "rgb.jpg"), M.GRAY).numpy(), _chw(np.asarray(img)))
    np.testing.assert_array_equal(io.read_image(str(files / "l.jpg"), M.RGB).numpy(),
                                  _chw(np.asarray(Image.open(files / "l.jpg").convert("RGB"))))
    with pytest.raises(RuntimeError, match="not supported for JPEG"):
        io.read_image(str(files / "rgb.jpg"), M.RGB_ALPHA)


def test_png_encode_round_trips_exactly(tmp_path):
    for arr in (_chw(RGB), _chw(RGB[..., 1])):
        x = mt.tensor(arr)
        enc = io.encode_png(x, compression_level=9)
        assert str(enc.dtype) == "torch.uint8" and enc.ndim == 1
        np.testing.assert_array_equal(io.decode_png(enc).numpy(), arr)
        io.write_png(x, str(tmp_path / "w.png"))
        np.testing.assert_array_equal(_chw(np.asarray(Image.open(tmp_path / "w.png"))), arr)


def test_jpeg_encode_is_a_real_jpeg(tmp_path):
    yy, xx = np.mgrid[0:16, 0:24]
    smooth = np.dstack([yy * 15, xx * 10, (yy + xx) * 6]).astype(np.uint8)  # JPEG keeps a smooth picture
    x = mt.tensor(_chw(smooth))
    enc = io.encode_jpeg(x, quality=95)
    raw = enc.numpy().tobytes()
    assert raw[:3] == b"\xff\xd8\xff"
    io.write_jpeg(x, str(tmp_path / "w.jpg"), quality=95)
    pil = np.asarray(Image.open(tmp_path / "w.jpg"))
    np.testing.assert_array_equal(io.decode_jpeg(enc).numpy(), _chw(pil))
    assert np.abs(pil.astype(int) - smooth.astype(int)).mean() < 3  # lossy, but the same picture
    assert len(io.encode_jpeg([x, x])) == 2


@pytest.mark.parametrize("raw,fn,match", [
    (b"hello world", io.decode_image, "Unsupported image file"),
    (b"hello world", io.decode_png, "png|Unsupported"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 30, io.decode_image, "truncated|Unsupported"),
])
def test_bad_bytes_raise_runtime_error(raw, fn, match):
    with pytest.raises(RuntimeError, match=match):
        fn(mt.tensor(np.frombuffer(raw, np.uint8).copy()))


def test_truncated_files_and_missing_files(files, tmp_path):
    for name in ("rgb.png", "rgb.jpg"):
        cut = tmp_path / f"cut_{name}"
        cut.write_bytes((files / name).read_bytes()[:80])
        with pytest.raises(RuntimeError, match="truncated"):
            io.read_image(str(cut))
    with pytest.raises(RuntimeError, match="No such file"):
        io.read_image(str(tmp_path / "absent.png"))
    (tmp_path / "empty").write_bytes(b"")
    with pytest.raises(RuntimeError, match="non empty"):
        io.read_file(str(tmp_path / "empty"))
    with pytest.raises(RuntimeError, match="Content is not png"):
        io.decode_png(io.read_file(str(files / "rgb.jpg")))


def test_encode_rejects_what_torchvision_rejects():
    with pytest.raises(RuntimeError, match="uint8"):
        io.encode_png(mt.zeros((3, 4, 4)))
    with pytest.raises(RuntimeError, match="number of channels"):
        io.encode_jpeg(mt.zeros((2, 4, 4), dtype=mt.uint8))
    with pytest.raises(RuntimeError, match="number of channels"):
        io.encode_png(mt.zeros((2, 4, 4), dtype=mt.uint8))
