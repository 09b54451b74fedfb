"""Helpers shared by the model builders: the ``weights`` / legacy ``pretrained`` arguments.

torchvision downloads pretrained weights from ``download.pytorch.org``; msnb
cannot (no network in the notebook's runtime, and no ``*_Weights`` enums), so
any request for pretrained weights fails loudly with the way to load a local
checkpoint instead.  ``pretrained=False`` is accepted with torchvision's
deprecation warning, like torchvision 0.13+.
"""

from __future__ import annotations

import warnings

__all__ = ["handle_weights", "make_divisible", "build_with_weights", "init_conv_norm_linear"]


def handle_weights(builder: str, weights, kwargs: dict) -> None:
    """Validate ``weights`` and pop the legacy ``pretrained`` flag from ``kwargs``.

    Raises ``NotImplementedError`` for anything but untrained weights, because
    silently returning a randomly initialised model for ``weights="DEFAULT"``
    would give wrong predictions without any error.
    """
    if "pretrained" in kwargs or isinstance(weights, bool):
        # torchvision 0.13+ maps the legacy bool (``pretrained=`` or a bool ``weights``) to DEFAULT / None
        pretrained = kwargs.pop("pretrained") if "pretrained" in kwargs else weights
        warnings.warn("The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, "
                      "please use 'weights' instead.", UserWarning, stacklevel=3)
        weights = "DEFAULT" if pretrained else None
    if weights is not None:
        weights = repr(weights)  # 'DEFAULT' or ResNet18_Weights.IMAGENET1K_V1
        raise NotImplementedError(
            f"torchvision.models.{builder}(weights={weights}) is not supported by msnb: pretrained weights "
            f"cannot be downloaded here. Build the model untrained and load a local checkpoint instead: "
            f"model = torchvision.models.{builder}(weights=None); "
            f"model.load_state_dict(torch.load(path))")


def build_with_weights(builder: str, enum, weights, kwargs: dict, make, **overrides):
    """Build ``make(**kwargs)`` and, for pretrained ``weights``, load them from torchvision's local hub cache.

    ``weights`` may be a member of ``enum``, its name or ``"DEFAULT"`` (or the legacy ``pretrained=``).  The
    file must already be in ``hub_checkpoint_dir()``: msnb never downloads, and says so in one line.
    ``overrides`` are the model kwargs the weights fix (``image_size`` of a ViT), like torchvision's.
    """
    from ._weights import resolve_weights
    if "pretrained" in kwargs or isinstance(weights, bool):
        pretrained = kwargs.pop("pretrained") if "pretrained" in kwargs else weights
        warnings.warn("The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, "
                      "please use 'weights' instead.", UserWarning, stacklevel=3)
        weights = "DEFAULT" if pretrained else None
    weights = resolve_weights(enum, weights)
    if weights is None:
        return make(**kwargs)
    state = weights.get_state_dict(progress=False, check_hash=True)  # raises first when the file is missing
    for key, value in {"num_classes": 1000, **overrides}.items():
        if kwargs.get(key, value) != value:
            raise ValueError(f"The parameter '{key}' expected value {value} but got {kwargs[key]} instead.")
        kwargs[key] = value
    model = make(**kwargs)
    model.load_state_dict(state)
    return model


def make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """torchvision's ``_make_divisible``: round channels to a multiple of ``divisor``, never below 90 % of ``v``."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def init_conv_norm_linear(model, linear_init) -> None:
    """torchvision's init of MobileNet / EfficientNet: convs kaiming-normal (fan_out) with zero bias, norms 1/0,
    each Linear by ``linear_init(weight)`` with zero bias."""
    from ...torch import nn
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            linear_init(m)
            nn.init.zeros_(m.bias)
