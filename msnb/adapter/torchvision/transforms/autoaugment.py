"""msnb implementation of ``torchvision.transforms`` AutoAugment, RandAugment, TrivialAugmentWide and AugMix.

Each transform picks its ops and magnitudes with the same ``torch.randint`` /
``torch.rand`` calls in the same order as torchvision, so after
``torch.manual_seed`` it makes torchvision's choices; AugMix's Dirichlet
weights replay PyTorch's CPU gamma sampler (Marsaglia-Tsang on the double
uniform and Box-Muller normal streams of the default generator).  The image
ops are ``functional``'s (PIL's on images, torchvision's tensor formulas on
tensors), so uint8 outputs equal torchvision's (tests compare them with
outputs recorded from real torchvision).
"""

from __future__ import annotations

import math
from enum import Enum

import numpy as np

from . import functional as F
from .functional import InterpolationMode

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]

_f32 = np.float32


def _torch():
    import msnb.adapter.torch as torch
    return torch


def _randint(high, low=0):
    """``int(torch.randint(low, high, (1,)).item())``."""
    return int(_torch().randint(low, high, (1,)).item())


def _linspace(start, end, steps):
    """``torch.linspace(start, end, steps)`` (float32): each half stepped from its own end, as PyTorch."""
    if steps == 1:
        return np.asarray([start], dtype=_f32)
    step = (_f32(end) - _f32(start)) / _f32(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    lo = _f32(start) + step * i[:half].astype(_f32)
    hi = _f32(end) - step * (steps - 1 - i[half:]).astype(_f32)
    return np.concatenate([lo, hi]).astype(_f32)


def _posterize_bits(top, num_bins, quarters):
    """``top - (arange(num_bins) / ((num_bins - 1) / quarters)).round().int()`` in float32."""
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.arange(num_bins, dtype=_f32) / _f32((num_bins - 1) / quarters)
    return (top - np.rint(q).astype(np.int32)).astype(np.int32)


#: an op without magnitudes (torchvision's 0-d ``torch.tensor(0.0)``)
_NONE = None


def _space(num_bins, shear, translate, rotate, enhance, posterize):
    """op name -> (magnitudes or None, signed), in torchvision's order (the op index is drawn into it)."""
    return {
        "ShearX": (_linspace(0.0, shear, num_bins), True),
        "ShearY": (_linspace(0.0, shear, num_bins), True),
        "TranslateX": (_linspace(0.0, translate[1], num_bins), True),
        "TranslateY": (_linspace(0.0, translate[0], num_bins), True),
        "Rotate": (_linspace(0.0, rotate, num_bins), True),
        "Brightness": (_linspace(0.0, enhance, num_bins), True),
        "Color": (_linspace(0.0, enhance, num_bins), True),
        "Contrast": (_linspace(0.0, enhance, num_bins), True),
        "Sharpness": (_linspace(0.0, enhance, num_bins), True),
        "Posterize": (_posterize_bits(*posterize), False),
        "Solarize": (_linspace(255.0, 0.0, num_bins), False),
        "AutoContrast": (_NONE, False),
        "Equalize": (_NONE, False),
    }


def _apply_op(img, op_name, magnitude, interpolation, fill):
    """One policy op; shears are ``atan(magnitude)`` degrees about the top-left corner, as torchvision."""
    if op_name in ("ShearX", "ShearY"):
        deg = math.degrees(math.atan(magnitude))
        shear = [deg, 0.0] if op_name == "ShearX" else [0.0, deg]
        return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0, shear=shear, interpolation=interpolation,
                        fill=fill, center=[0, 0])
    if op_name in ("TranslateX", "TranslateY"):
        translate = [int(magnitude), 0] if op_name == "TranslateX" else [0, int(magnitude)]
        return F.affine(img, angle=0.0, translate=translate, scale=1.0, interpolation=interpolation,
                        shear=[0.0, 0.0], fill=fill)
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    enhance = {"Brightness": F.adjust_brightness, "Color": F.adjust_saturation, "Contrast": F.adjust_contrast,
               "Sharpness": F.adjust_sharpness}
    if op_name in enhance:
        return enhance[op_name](img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    plain = {"AutoContrast": F.autocontrast, "Equalize": F.equalize, "Invert": F.invert}
    if op_name in plain:
        return plain[op_name](img)
    if op_name == "Identity":
        return img
    raise ValueError(f"The provided operator {op_name} is not recognized.")


def _tensor_fill(img, fill):
    """torchvision's fill for tensors: a number becomes one float per channel."""
    if not F._is_tensor(img):
        return fill
    channels = F.get_dimensions(img)[0]
    if isinstance(fill, (int, float)):
        return [float(fill)] * channels
    if fill is not None:
        return [float(f) for f in fill]
    return fill


def _signed(magnitude, signed, negate):
    return -magnitude if signed and negate else magnitude


class AutoAugmentPolicy(Enum):
    """AutoAugment policies learned on ImageNet, CIFAR10 and SVHN."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


def _policy(text):
    """``"Op p m; Op p -"`` pairs separated by ``|`` -> ((op, p, m or None), (op, p, m or None)) tuples."""
    out = []
    for pair in text.split("|"):
        ops = []
        for item in pair.split(";"):
            name, p, m = item.split()
            ops.append((name, float(p), None if m == "-" else int(m)))
        out.append(tuple(ops))
    return out


# The published AutoAugment sub-policies (as listed in torchvision): each is two (op, probability, magnitude bin).
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: _policy(
        "Posterize .4 8; Rotate .6 9|Solarize .6 5; AutoContrast .6 -|Equalize .8 -; Equalize .6 -|"
        "Posterize .6 7; Posterize .6 6|Equalize .4 -; Solarize .2 4|Equalize .4 -; Rotate .8 8|"
        "Solarize .6 3; Equalize .6 -|Posterize .8 5; Equalize 1 -|Rotate .2 3; Solarize .6 8|"
        "Equalize .6 -; Posterize .4 6|Rotate .8 8; Color .4 0|Rotate .4 9; Equalize .6 -|"
        "Equalize 0 -; Equalize .8 -|Invert .6 -; Equalize 1 -|Color .6 4; Contrast 1 8|"
        "Rotate .8 8; Color 1 2|Color .8 8; Solarize .8 7|Sharpness .4 7; Invert .6 -|"
        "ShearX .6 5; Equalize 1 -|Color .4 0; Equalize .6 -|Equalize .4 -; Solarize .2 4|"
        "Solarize .6 5; AutoContrast .6 -|Invert .6 -; Equalize 1 -|Color .6 4; Contrast 1 8|"
        "Equalize .8 -; Equalize .6 -"),
    AutoAugmentPolicy.CIFAR10: _policy(
        "Invert .1 -; Contrast .2 6|Rotate .7 2; TranslateX .3 9|Sharpness .8 1; Sharpness .9 3|"
        "ShearY .5 8; TranslateY .7 9|AutoContrast .5 -; Equalize .9 -|ShearY .2 7; Posterize .3 7|"
        "Color .4 3; Brightness .6 7|Sharpness .3 9; Brightness .7 9|Equalize .6 -; Equalize .5 -|"
        "Contrast .6 7; Sharpness .6 5|Color .7 7; TranslateX .5 8|Equalize .3 -; AutoContrast .4 -|"
        "TranslateY .4 3; Sharpness .2 6|Brightness .9 6; Color .2 8|Solarize .5 2; Invert 0 -|"
        "Equalize .2 -; AutoContrast .6 -|Equalize .2 -; Equalize .6 -|Color .9 9; Equalize .6 -|"
        "AutoContrast .8 -; Solarize .2 8|Brightness .1 3; Color .7 0|Solarize .4 5; AutoContrast .9 -|"
        "TranslateY .9 9; TranslateY .7 9|AutoContrast .9 -; Solarize .8 3|Equalize .8 -; Invert .1 -|"
        "TranslateY .7 9; AutoContrast .9 -"),
    AutoAugmentPolicy.SVHN: _policy(
        "ShearX .9 4; Invert .2 -|ShearY .9 8; Invert .7 -|Equalize .6 -; Solarize .6 6|"
        "Invert .9 -; Equalize .6 -|Equalize .6 -; Rotate .9 3|ShearX .9 4; AutoContrast .8 -|"
        "ShearY .9 8; Invert .4 -|ShearY .9 5; Solarize .2 6|Invert .9 -; AutoContrast .8 -|"
        "Equalize .6 -; Rotate .9 3|ShearX .9 4; Solarize .3 3|ShearY .8 8; Invert .7 -|"
        "Equalize .9 -; TranslateY .6 6|Invert .9 -; Equalize .6 -|Contrast .3 3; Rotate .8 4|"
        "Invert .8 -; TranslateY 0 2|ShearY .7 6; Solarize .4 8|Invert .6 -; Rotate .8 4|"
        "ShearY .3 7; TranslateX .9 3|ShearX .1 6; Invert .6 -|Solarize .7 2; TranslateY .6 7|"
        "ShearY .8 4; Invert .8 -|ShearX .7 9; TranslateY .8 3|ShearY .8 5; AutoContrast .7 -|"
        "ShearX .7 2; Invert .1 -"),
}


class _AugmentBase:
    """The transforms are ``nn.Module`` in torchvision: calling one runs ``forward``."""

    def __call__(self, img):
        return self.forward(img)


class AutoAugment(_AugmentBase):
    """One of the policy's 25 sub-policies, each op applied with its probability and a random sign."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST, fill=None):
        self.policy = policy
        self.interpolation = interpolation
        self.fill = fill
        self.policies = self._get_policies(policy)

    @staticmethod
    def _get_policies(policy):
        if policy not in _POLICIES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        return list(_POLICIES[policy])

    def _augmentation_space(self, num_bins, image_size):
        space = _space(num_bins, 0.3, (150.0 / 331.0 * image_size[0], 150.0 / 331.0 * image_size[1]), 30.0, 0.9,
                       (8, num_bins, 4))
        space["Invert"] = (_NONE, False)
        return space

    @staticmethod
    def get_params(transform_num):
        """``(policy index, 2 probabilities, 2 signs)``: torchvision's three draws."""
        torch = _torch()
        policy_id = _randint(transform_num)
        probs = torch.rand((2,))
        signs = torch.randint(2, (2,))
        return policy_id, probs, signs

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        _, height, width = F.get_dimensions(img)
        transform_id, probs, signs = self.get_params(len(self.policies))
        probs = np.asarray(probs.numpy(), dtype=_f32)
        signs = np.asarray(signs.numpy())
        op_meta = self._augmentation_space(10, (height, width))
        for i, (op_name, p, magnitude_id) in enumerate(self.policies[transform_id]):
            if probs[i] <= _f32(p):
                magnitudes, signed = op_meta[op_name]
                magnitude = float(magnitudes[magnitude_id]) if magnitude_id is not None else 0.0
                magnitude = _signed(magnitude, signed, signs[i] == 0)
                img = _apply_op(img, op_name, magnitude, interpolation=self.interpolation, fill=fill)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


def _draw_op(op_meta):
    op_name = list(op_meta)[_randint(len(op_meta))]
    return op_name, op_meta[op_name]


class RandAugment(_AugmentBase):
    """``num_ops`` ops drawn uniformly, all at bin ``magnitude`` of ``num_magnitude_bins``, random signs."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins, image_size):
        space = {"Identity": (_NONE, False)}
        space.update(_space(num_bins, 0.3, (150.0 / 331.0 * image_size[0], 150.0 / 331.0 * image_size[1]), 30.0,
                            0.9, (8, num_bins, 4)))
        return space

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        _, height, width = F.get_dimensions(img)
        op_meta = self._augmentation_space(self.num_magnitude_bins, (height, width))
        for _ in range(self.num_ops):
            op_name, (magnitudes, signed) = _draw_op(op_meta)
            magnitude = float(magnitudes[self.magnitude]) if magnitudes is not None else 0.0
            if signed and _randint(2):
                magnitude = -magnitude
            img = _apply_op(img, op_name, magnitude, interpolation=self.interpolation, fill=fill)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}, "
                f"num_magnitude_bins={self.num_magnitude_bins}, interpolation={self.interpolation}, "
                f"fill={self.fill})")


class TrivialAugmentWide(_AugmentBase):
    """One op drawn uniformly with a magnitude drawn uniformly from its bins (wide ranges), random sign."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins):
        space = {"Identity": (_NONE, False)}
        space.update(_space(num_bins, 0.99, (32.0, 32.0), 135.0, 0.99, (8, num_bins, 6)))
        return space

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        op_name, (magnitudes, signed) = _draw_op(self._augmentation_space(self.num_magnitude_bins))
        magnitude = float(magnitudes[_randint(len(magnitudes))]) if magnitudes is not None else 0.0
        if signed and _randint(2):
            magnitude = -magnitude
        return _apply_op(img, op_name, magnitude, interpolation=self.interpolation, fill=fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


def _sample_gamma(alpha, g):
    """PyTorch's CPU ``sample_gamma`` (double): boost below 1, then Marsaglia-Tsang acceptance-rejection."""
    from msnb.adapter.torch._ops import sampling

    def uniform():
        return float(sampling._unit53(g, 1)[0])

    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        scale *= (1.0 - uniform()) ** (1.0 / alpha)
        alpha += 1.0
    d = alpha - float(_f32(1.0) / _f32(3.0))
    c = 1.0 / math.sqrt(9.0 * d)
    k = float(_f32(0.0331))
    while True:
        while True:
            x = sampling._normal_scalar(g, 0.0, 1.0)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - uniform()
        xx = x * x
        if u < 1.0 - k * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _sample_dirichlet(alpha, rows):
    """``torch._sample_dirichlet`` of a float32 ``(rows, len(alpha))`` concentration on the default generator."""
    from msnb.adapter.torch._ops.random import gen
    g = gen()
    alpha = [float(_f32(a)) for a in alpha]
    gam = np.asarray([[max(np.finfo(np.float64).tiny, _sample_gamma(a, g)) for a in alpha] for _ in range(rows)])
    out = (gam / gam.sum(-1, keepdims=True)).astype(_f32)
    return np.clip(out, np.finfo(_f32).tiny, np.nextafter(_f32(1), _f32(0)))


class AugMix(_AugmentBase):
    """``mixture_width`` chains of 1-3 ops mixed with Dirichlet weights, then Beta-mixed with the original."""

    _PARAMETER_MAX = 10

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation=InterpolationMode.BILINEAR, fill=None):
        if not (1 <= severity <= self._PARAMETER_MAX):
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got {severity} instead.")
        self.severity = severity
        self.mixture_width = mixture_width
        self.chain_depth = chain_depth
        self.alpha = alpha
        self.all_ops = all_ops
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins, image_size):
        space = _space(num_bins, 0.3, (image_size[0] / 3.0, image_size[1] / 3.0), 30.0, 0.9, (4, num_bins, 4))
        enhance = ("Brightness", "Color", "Contrast", "Sharpness")
        core = {k: v for k, v in space.items() if k not in enhance}
        if self.all_ops:
            core.update({k: space[k] for k in enhance})
        return core

    def forward(self, orig_img):
        torch = _torch()
        _, height, width = F.get_dimensions(orig_img)
        if F._is_tensor(orig_img):
            img = orig_img
            fill = _tensor_fill(orig_img, self.fill)
        else:
            img = F.pil_to_tensor(orig_img)
            fill = self.fill
        op_meta = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        orig_dims = list(img.shape)
        batch = img.view([1] * max(4 - img.ndim, 0) + orig_dims)
        rows = int(batch.shape[0])
        batch_dims = [rows] + [1] * (batch.ndim - 1)
        m = _sample_dirichlet([self.alpha, self.alpha], rows)
        combined = _sample_dirichlet([self.alpha] * self.mixture_width, rows) * m[:, 1].reshape(rows, -1)
        batch_np = np.asarray(batch.numpy())
        mix = m[:, 0].reshape(batch_dims) * batch_np.astype(_f32) if batch_np.dtype.kind != "f" else \
            m[:, 0].reshape(batch_dims).astype(batch_np.dtype) * batch_np
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else _randint(4, low=1)
            for _ in range(depth):
                op_name, (magnitudes, signed) = _draw_op(op_meta)
                magnitude = float(magnitudes[_randint(self.severity)]) if magnitudes is not None else 0.0
                if signed and _randint(2):
                    magnitude = -magnitude
                aug = _apply_op(aug, op_name, magnitude, interpolation=self.interpolation, fill=fill)
            mix = mix + combined[:, i].reshape(batch_dims).astype(mix.dtype) * np.asarray(aug.numpy())
        out = torch.from_numpy(np.ascontiguousarray(mix.reshape(orig_dims).astype(batch_np.dtype)))
        if not F._is_tensor(orig_img):
            return F.to_pil_image(out)
        return out

    def __repr__(self):
        return (f"{self.__class__.__name__}(severity={self.severity}, mixture_width={self.mixture_width}, "
                f"chain_depth={self.chain_depth}, alpha={self.alpha}, all_ops={self.all_ops}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
