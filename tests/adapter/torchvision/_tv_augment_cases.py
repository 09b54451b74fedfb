"""The auto-augment cases, written once for both sides: ``tools/tv_reference_facts.py --augment`` runs them
with real torchvision (recording ``data/tv_augment_facts.pt``), test_tv_autoaugment.py with msnb's.

Each builder takes the ``transforms`` package (``T``) and its ``functional`` module (``F``) of one side.
"""

from __future__ import annotations

__all__ = ["functional_cases", "float_case", "augment_transforms", "error_cases", "SEEDS"]

#: seeds each transform runs with, per input kind
SEEDS = dict(tensor_rgb=range(10), pil_rgb=range(3), tensor_gray=range(3))


def functional_cases(T, F):
    """[(name, fn(img))]: every functional op the policies use, with typical and edge arguments."""
    I = T.InterpolationMode
    cases = []
    for bits in (0, 1, 3, 6, 8):
        cases.append((f"posterize_{bits}", lambda im, b=bits: F.posterize(im, b)))
    for th in (0, 100.5, 200, 255):
        cases.append((f"solarize_{th}", lambda im, t=th: F.solarize(im, t)))
    for name in ("invert", "autocontrast", "equalize"):
        cases.append((name, lambda im, n=name: getattr(F, n)(im)))
    for fn, factors in (("adjust_sharpness", (0.0, 0.4, 1.7)), ("adjust_brightness", (0.3, 1.6)),
                        ("adjust_contrast", (0.2, 1.8)), ("adjust_saturation", (0.0, 1.5))):
        for f in factors:
            cases.append((f"{fn}_{f}", lambda im, fn=fn, f=f: getattr(F, fn)(im, f)))
    for mode in (I.NEAREST, I.BILINEAR):
        for fill in (None, 10):
            for angle, expand, center in ((17.0, False, None), (-45.0, True, None), (120.0, False, [2, 3])):
                cases.append((f"rotate_{mode.value}_{fill}_{angle}_{expand}_{center}",
                              lambda im, m=mode, f=fill, a=angle, e=expand, c=center:
                              F.rotate(im, a, m, expand=e, center=c, fill=f)))
            for angle, tr, sc, sh, center in ((0.0, [0, 0], 1.0, [11.3, 0.0], [0, 0]),
                                              (0.0, [3, -2], 1.0, [0.0, 0.0], None),
                                              (25.0, [1, 2], 0.8, [5.0, -9.0], None),
                                              (-10.0, [0, 0], 1.3, 20.0, [4, 1])):
                cases.append((f"affine_{mode.value}_{fill}_{angle}_{tr}_{sc}_{sh}_{center}",
                              lambda im, m=mode, f=fill, a=angle, t=tr, s=sc, h=sh, c=center:
                              F.affine(im, a, t, s, h, interpolation=m, fill=f, center=c)))
    return cases


def float_case(name):
    """The float32 copy runs the colour ops and two geometry cases per interpolation (keeps the file small)."""
    return not name.startswith(("rotate", "affine")) or name.endswith("_None_17.0_False_None") \
        or name.startswith(("affine_nearest_None_25.0", "affine_bilinear_None_25.0"))


def augment_transforms(T):
    """name -> builder of each auto-augment transform variant (defaults, bins, interpolation, fill)."""
    I = T.InterpolationMode
    P = T.AutoAugmentPolicy
    return {
        "TrivialAugmentWide": lambda: T.TrivialAugmentWide(),
        "TrivialAugmentWide_11_bilinear_fill": lambda: T.TrivialAugmentWide(11, I.BILINEAR, fill=40),
        "RandAugment": lambda: T.RandAugment(),
        "RandAugment_3_15_fill": lambda: T.RandAugment(num_ops=3, magnitude=15, fill=100),
        "RandAugment_bins11_bilinear": lambda: T.RandAugment(magnitude=10, num_magnitude_bins=11,
                                                             interpolation=I.BILINEAR),
        "AutoAugment_imagenet": lambda: T.AutoAugment(),
        "AutoAugment_cifar10": lambda: T.AutoAugment(P.CIFAR10),
        "AutoAugment_svhn": lambda: T.AutoAugment(P.SVHN),
        "AutoAugment_cifar10_bilinear_fill": lambda: T.AutoAugment(P.CIFAR10, I.BILINEAR, fill=200),
        "AugMix": lambda: T.AugMix(),
        "AugMix_5_2_2_half_basic": lambda: T.AugMix(severity=5, mixture_width=2, chain_depth=2, alpha=0.5,
                                                    all_ops=False),
        "RandomPosterize": lambda: T.RandomPosterize(3),
        "RandomSolarize": lambda: T.RandomSolarize(100.0),
        "RandomInvert": lambda: T.RandomInvert(),
        "RandomEqualize": lambda: T.RandomEqualize(),
        "RandomAutocontrast": lambda: T.RandomAutocontrast(),
        "RandomAdjustSharpness": lambda: T.RandomAdjustSharpness(2.0),
        "RandomAffine": lambda: T.RandomAffine(30, translate=(0.2, 0.1), scale=(0.7, 1.2), shear=(-10, 10, -5, 5)),
        "RandomAffine_bilinear_fill_center": lambda: T.RandomAffine((-15, 40), shear=12,
                                                                    interpolation=I.BILINEAR, fill=9, center=(3, 4)),
    }


def error_cases(T, F, rgb, cat):
    """name -> call that must raise (``rgb``: the uint8 RGB tensor, ``cat``: that side's ``torch.cat``)."""
    return {
        "posterize_float": lambda: F.posterize(rgb.float(), 3),
        "posterize_bits": lambda: F.posterize(rgb, 9),
        "equalize_float": lambda: F.equalize(rgb.float()),
        "equalize_5d": lambda: F.equalize(rgb[None, None]),
        "solarize_threshold": lambda: F.solarize(rgb, 256),
        "invert_2d": lambda: F.invert(rgb[0]),
        "autocontrast_4ch": lambda: F.autocontrast(cat([rgb, rgb[:1]])),
        "sharpness_negative": lambda: F.adjust_sharpness(rgb, -1.0),
        "rotate_bicubic": lambda: F.rotate(rgb, 10.0, T.InterpolationMode.BICUBIC),
        "rotate_fill_len": lambda: F.rotate(rgb, 10.0, fill=[1, 2]),
        "affine_scale": lambda: F.affine(rgb, 0.0, [0, 0], 0.0, [0.0]),
        "affine_translate": lambda: F.affine(rgb, 0.0, [0], 1.0, [0.0]),
        "autoaugment_policy": lambda: T.AutoAugment("imagenet"),
        "augmix_severity": lambda: T.AugMix(severity=11),
        "randomaffine_translate": lambda: T.RandomAffine(0, translate=(0.2, 1.5)),
        "randomaffine_shear": lambda: T.RandomAffine(0, shear=[1, 2, 3]),
    }
