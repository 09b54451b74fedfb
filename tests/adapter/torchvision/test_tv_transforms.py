"""torchvision.transforms on msnb: outputs checked against values computed independently with PIL/numpy."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import msnb.adapter.torch as torch
from msnb.adapter.torchvision import transforms as T
from msnb.adapter.torchvision.transforms import InterpolationMode
from msnb.adapter.torchvision.transforms import functional as F


def arr(t):
    return np.asarray(t.numpy())


# --- conversions ----------------------------------------------------------------------------------
def test_to_tensor_pil(rgb_image):
    x = T.ToTensor()(rgb_image)
    assert isinstance(x, torch.Tensor)
    assert x.dtype == torch.float32
    assert tuple(x.shape) == (3, 37, 53)
    expected = np.asarray(rgb_image).transpose(2, 0, 1).astype(np.float32) / np.float32(255)
    np.testing.assert_array_equal(arr(x), expected)


def test_to_tensor_ndarray_and_gray():
    a = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    np.testing.assert_allclose(arr(T.ToTensor()(a)), a.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    g = Image.fromarray(np.arange(12, dtype=np.uint8).reshape(3, 4), "L")
    x = T.ToTensor()(g)
    assert tuple(x.shape) == (1, 3, 4)
    # non-uint8 arrays are not rescaled
    f = np.ones((2, 2, 3), np.float32) * 7
    assert arr(T.ToTensor()(f)).max() == 7


def test_pil_to_tensor_and_back(rgb_image):
    x = T.PILToTensor()(rgb_image)
    assert x.dtype == torch.uint8
    np.testing.assert_array_equal(arr(x), np.asarray(rgb_image).transpose(2, 0, 1))
    back = T.ToPILImage()(x)
    assert back.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(back), np.asarray(rgb_image))
    # float tensors: * 255 then truncated to uint8
    f = T.ToTensor()(rgb_image)
    img = T.ToPILImage()(f)
    np.testing.assert_array_equal(np.asarray(img), (arr(f).transpose(1, 2, 0) * 255).astype(np.uint8))
    one = T.ToPILImage()(torch.zeros(1, 4, 5))
    assert one.mode == "L" and one.size == (5, 4)


def test_convert_image_dtype():
    u = torch.tensor(np.array([[[0, 128, 255]]], np.uint8))
    f = T.ConvertImageDtype(torch.float32)(u)
    assert f.dtype == torch.float32
    np.testing.assert_allclose(arr(f), np.array([[[0, 128 / 255, 1.0]]]), rtol=1e-6)
    back = F.convert_image_dtype(f, torch.uint8)
    np.testing.assert_array_equal(arr(back), (arr(f) * (255 + 1.0 - 1e-3)).astype(np.uint8))


def test_normalize_formula():
    rng = np.random.default_rng(0)
    a = rng.random((3, 4, 5)).astype(np.float32)
    mean, std = [0.4914, 0.4822, 0.4465], [0.247, 0.2435, 0.2616]
    out = T.Normalize(mean, std)(torch.from_numpy(a))
    expected = (a - np.array(mean, np.float32)[:, None, None]) / np.array(std, np.float32)[:, None, None]
    np.testing.assert_allclose(arr(out), expected, rtol=1e-6)
    with pytest.raises(TypeError):
        T.Normalize(mean, std)(torch.from_numpy((a * 255).astype(np.uint8)))
    with pytest.raises(ValueError):
        T.Normalize([0.0], [0.0])(torch.from_numpy(a))


# --- resize / crops -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,pil", [(InterpolationMode.NEAREST, Image.NEAREST),
                                      (InterpolationMode.BILINEAR, Image.BILINEAR),
                                      (InterpolationMode.BICUBIC, Image.BICUBIC)])
def test_resize_pil_matches_pil(rgb_image, mode, pil):
    out = T.Resize((20, 30), interpolation=mode)(rgb_image)
    assert out.size == (30, 20)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(rgb_image.resize((30, 20), pil)))


def test_resize_int_keeps_aspect(rgb_image):
    out = T.Resize(20)(rgb_image)  # 53x37 (w x h): shorter side h -> 20, w = int(20 * 53 / 37)
    assert out.size == (int(20 * 53 / 37), 20)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(rgb_image.resize((int(20 * 53 / 37), 20), Image.BILINEAR)))
    assert T.Resize(37)(rgb_image) is rgb_image
    out = T.Resize(20, max_size=25)(rgb_image)
    assert out.size == (25, int(25 * 20 / 28))


def test_resize_tensor(rgb_image):
    x = T.ToTensor()(rgb_image)
    out = T.Resize((20, 30))(x)
    assert tuple(out.shape) == (3, 20, 30) and out.dtype == torch.float32
    a = arr(x)
    expected = np.stack([np.asarray(Image.fromarray(c, "F").resize((30, 20), Image.BILINEAR)) for c in a])
    np.testing.assert_allclose(arr(out), expected, rtol=1e-6)
    u = T.Resize((10, 10), interpolation=InterpolationMode.NEAREST)(T.PILToTensor()(rgb_image))
    assert u.dtype == torch.uint8 and tuple(u.shape) == (3, 10, 10)
    src = np.asarray(rgb_image).transpose(2, 0, 1)
    ys = np.floor(np.arange(10) * 37 / 10).astype(int)
    xs = np.floor(np.arange(10) * 53 / 10).astype(int)
    np.testing.assert_array_equal(arr(u), src[:, ys][:, :, xs])
    # batched tensors keep their leading dims
    assert tuple(T.Resize(8)(torch.zeros(2, 3, 16, 32)).shape) == (2, 3, 8, 16)


def test_center_crop_box(rgb_image):
    out = T.CenterCrop((20, 30))(rgb_image)
    top, left = int(round((37 - 20) / 2.0)), int(round((53 - 30) / 2.0))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(rgb_image)[top:top + 20, left:left + 30])
    t = T.CenterCrop(10)(T.PILToTensor()(rgb_image))
    top, left = int(round(27 / 2.0)), int(round(43 / 2.0))
    np.testing.assert_array_equal(arr(t), np.asarray(rgb_image).transpose(2, 0, 1)[:, top:top + 10, left:left + 10])
    big = T.CenterCrop(60)(rgb_image)
    assert big.size == (60, 60)


def test_flips_p1(rgb_image):
    a = np.asarray(rgb_image)
    np.testing.assert_array_equal(np.asarray(T.RandomHorizontalFlip(p=1)(rgb_image)), a[:, ::-1])
    np.testing.assert_array_equal(np.asarray(T.RandomVerticalFlip(p=1)(rgb_image)), a[::-1])
    t = T.PILToTensor()(rgb_image)
    np.testing.assert_array_equal(arr(T.RandomHorizontalFlip(p=1)(t)), a.transpose(2, 0, 1)[:, :, ::-1])
    np.testing.assert_array_equal(arr(T.RandomVerticalFlip(p=1)(t)), a.transpose(2, 0, 1)[:, ::-1])
    assert T.RandomHorizontalFlip(p=0)(rgb_image) is rgb_image


def test_random_crop_reproducible(rgb_image):
    crop = T.RandomCrop(16)
    torch.manual_seed(3)
    a = [np.asarray(crop(rgb_image)) for _ in range(4)]
    torch.manual_seed(3)
    b = [np.asarray(crop(rgb_image)) for _ in range(4)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert a[0].shape == (16, 16, 3)
    assert any(not np.array_equal(a[0], x) for x in a[1:])
    # every crop is a real window of the source
    src = np.asarray(rgb_image)
    found = any(np.array_equal(src[i:i + 16, j:j + 16], a[0]) for i in range(22) for j in range(38))
    assert found


def test_random_crop_padding(rgb_image):
    out = T.RandomCrop(32, padding=4)(T.CenterCrop(32)(rgb_image))
    assert out.size == (32, 32)
    t = T.RandomCrop((50, 60), pad_if_needed=True, fill=7)(T.PILToTensor()(rgb_image))
    assert tuple(t.shape) == (3, 50, 60)
    padded = F.pad(rgb_image, [1, 2, 3, 4], padding_mode="reflect")
    np.testing.assert_array_equal(np.asarray(padded),
                                  np.pad(np.asarray(rgb_image), ((2, 4), (1, 3), (0, 0)), mode="reflect"))
    with pytest.raises(ValueError):
        T.RandomCrop(100)(rgb_image)


def test_pad_modes(rgb_image):
    a = np.asarray(rgb_image)
    out = T.Pad(2, fill=(1, 2, 3))(rgb_image)
    assert out.size == (57, 41)
    assert tuple(np.asarray(out)[0, 0]) == (1, 2, 3)
    np.testing.assert_array_equal(np.asarray(out)[2:-2, 2:-2], a)
    for mode in ("edge", "reflect", "symmetric"):
        np.testing.assert_array_equal(np.asarray(T.Pad((1, 2), padding_mode=mode)(rgb_image)),
                                      np.pad(a, ((2, 2), (1, 1), (0, 0)), mode=mode))
        t = T.Pad([1, 2, 3, 4], padding_mode=mode)(T.PILToTensor()(rgb_image))
        np.testing.assert_array_equal(arr(t), np.pad(a.transpose(2, 0, 1), ((0, 0), (2, 4), (1, 3)), mode=mode))


def test_random_resized_crop(rgb_image):
    t = T.RandomResizedCrop(24, interpolation=InterpolationMode.BICUBIC)
    torch.manual_seed(0)
    a = np.asarray(t(rgb_image))
    torch.manual_seed(0)
    b = np.asarray(t(rgb_image))
    assert a.shape == (24, 24, 3)
    np.testing.assert_array_equal(a, b)
    torch.manual_seed(0)
    i, j, h, w = T.RandomResizedCrop.get_params(rgb_image, (0.08, 1.0), (3 / 4, 4 / 3))
    assert 0 <= i <= 37 - h and 0 <= j <= 53 - w
    expected = rgb_image.crop((j, i, j + w, i + h)).resize((24, 24), Image.BICUBIC)
    np.testing.assert_array_equal(a, np.asarray(expected))


def test_rotation(rgb_image):
    out = F.rotate(rgb_image, 90)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(rgb_image.rotate(90, Image.NEAREST)))
    torch.manual_seed(1)
    r1 = np.asarray(T.RandomRotation(30, fill=5)(rgb_image))
    torch.manual_seed(1)
    r2 = np.asarray(T.RandomRotation(30, fill=5)(rgb_image))
    np.testing.assert_array_equal(r1, r2)
    torch.manual_seed(1)
    angle = T.RandomRotation.get_params([-30.0, 30.0])
    assert -30 <= angle <= 30
    np.testing.assert_array_equal(r1, np.asarray(rgb_image.rotate(angle, Image.NEAREST, fillcolor=(5, 5, 5))))
    t = T.RandomRotation((90, 90))(torch.from_numpy(np.arange(16, dtype=np.float32).reshape(1, 4, 4)))
    np.testing.assert_array_equal(arr(t)[0], np.rot90(np.arange(16, dtype=np.float32).reshape(4, 4)))


def test_color_jitter_and_grayscale(rgb_image):
    from PIL import ImageEnhance

    np.testing.assert_array_equal(np.asarray(F.adjust_brightness(rgb_image, 1.5)),
                                  np.asarray(ImageEnhance.Brightness(rgb_image).enhance(1.5)))
    x = T.ToTensor()(rgb_image)
    np.testing.assert_allclose(arr(F.adjust_brightness(x, 0.5)), np.clip(arr(x) * 0.5, 0, 1), rtol=1e-6)
    gray = arr(F.rgb_to_grayscale(x))
    a = arr(x)
    np.testing.assert_allclose(gray[0], 0.2989 * a[0] + 0.587 * a[1] + 0.114 * a[2], rtol=1e-5)
    # hue shift by 0 keeps the image
    np.testing.assert_allclose(arr(F.adjust_hue(x, 0.0)), a, atol=1e-5)
    cj = T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
    torch.manual_seed(7)
    o1 = np.asarray(cj(rgb_image))
    torch.manual_seed(7)
    o2 = np.asarray(cj(rgb_image))
    np.testing.assert_array_equal(o1, o2)
    assert o1.shape == (37, 53, 3)
    out = cj(x)
    assert tuple(out.shape) == (3, 37, 53) and float(arr(out).min()) >= 0 and float(arr(out).max()) <= 1
    g = T.Grayscale()(rgb_image)
    assert g.mode == "L"
    np.testing.assert_array_equal(np.asarray(g), np.asarray(rgb_image.convert("L")))
    g3 = T.Grayscale(num_output_channels=3)(rgb_image)
    assert g3.mode == "RGB"
    assert tuple(T.Grayscale(3)(x).shape) == (3, 37, 53)


def test_lambda_apply_compose(rgb_image):
    t = T.Compose([T.Lambda(lambda im: im.rotate(180)), T.RandomApply([T.RandomHorizontalFlip(p=1)], p=1.0)])
    np.testing.assert_array_equal(np.asarray(t(rgb_image)), np.asarray(rgb_image)[::-1])
    assert T.RandomApply([T.RandomHorizontalFlip(p=1)], p=0.0)(rgb_image) is rgb_image
    with pytest.raises(TypeError):
        T.Lambda(3)


def test_reprs():
    assert repr(T.Resize(224)) == "Resize(size=224, interpolation=bilinear, max_size=None, antialias=True)"
    assert repr(T.CenterCrop(224)) == "CenterCrop(size=(224, 224))"
    assert repr(T.Normalize((0.5,), (0.5,))) == "Normalize(mean=(0.5,), std=(0.5,))"
    assert repr(T.RandomHorizontalFlip()) == "RandomHorizontalFlip(p=0.5)"
    assert repr(T.RandomCrop(32, padding=4)) == "RandomCrop(size=(32, 32), padding=4)"
    assert repr(T.ToTensor()) == "ToTensor()"
    assert repr(T.Compose([T.ToTensor()])) == "Compose(\n    ToTensor()\n)"
    assert repr(T.ColorJitter(0.4)) == "ColorJitter(brightness=(0.6, 1.4), contrast=None, saturation=None, hue=None)"
    assert repr(T.RandomRotation(10)) == ("RandomRotation(degrees=[-10.0, 10.0], interpolation=nearest, "
                                          "expand=False, fill=0)")
    assert repr(T.RandomResizedCrop(224)) == ("RandomResizedCrop(size=(224, 224), scale=(0.08, 1.0), "
                                              "ratio=(0.75, 1.3333), interpolation=bilinear, antialias=True)")


def test_all_names_exist():
    import msnb.adapter.torchvision.transforms as pkg
    import msnb.adapter.torchvision.transforms.transforms as mod

    for m in (pkg, mod, F):
        for name in m.__all__:
            assert hasattr(m, name), (m.__name__, name)
