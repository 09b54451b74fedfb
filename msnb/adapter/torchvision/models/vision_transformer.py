"""msnb implementation of ``torchvision.models.vision_transformer`` (ViT-B/16, B/32, L/16, L/32, H/14).

Same module tree (``conv_proj``, ``class_token``,
``encoder.layers.encoder_layer_<i>.{ln_1, self_attention, ln_2, mlp}``,
``heads.head``), ``state_dict`` keys and default initialisation as
torchvision 0.2x; pretrained ``weights`` load from torchvision's local hub
cache when the file is there.  ``conv_stem_configs`` is not supported.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from functools import partial

from ... import torch
from ...torch import nn
from . import _weights as W
from ._utils import build_with_weights

__all__ = ["VisionTransformer", "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]


class MLPBlock(nn.Sequential):
    """Linear -> GELU -> Dropout -> Linear -> Dropout (keys ``mlp.0`` and ``mlp.3``)."""

    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(nn.Linear(in_dim, mlp_dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(mlp_dim, in_dim),
                         nn.Dropout(dropout))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)


class EncoderBlock(nn.Module):
    """Pre-norm transformer layer: x + attention(ln_1(x)), then + mlp(ln_2(.))."""

    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        if input.dim() != 3:
            raise ValueError(f"Expected (batch_size, seq_length, hidden_dim) got {tuple(input.shape)}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """Learned position embedding, the encoder layers, a final norm."""

    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.pos_embedding = nn.Parameter(torch.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.Sequential(OrderedDict(
            (f"encoder_layer_{i}", EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer))
            for i in range(num_layers)))
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        if input.dim() != 3:
            raise ValueError(f"Expected (batch_size, seq_length, hidden_dim) got {tuple(input.shape)}")
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    """msnb implementation of ``torchvision.models.VisionTransformer``."""

    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, dropout=0.0,
                 attention_dropout=0.0, num_classes=1000, representation_size=None,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6), conv_stem_configs=None):
        super().__init__()
        if image_size % patch_size != 0:
            raise ValueError("Input shape indivisible by patch size!")
        if conv_stem_configs is not None:
            raise NotImplementedError("VisionTransformer(conv_stem_configs=...) is not supported by msnb yet "
                                      "(see the support list, docs/support.md)")
        self.image_size, self.patch_size, self.hidden_dim, self.mlp_dim = image_size, patch_size, hidden_dim, mlp_dim
        self.attention_dropout, self.dropout = attention_dropout, dropout
        self.num_classes, self.representation_size, self.norm_layer = num_classes, representation_size, norm_layer
        self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2
        self.class_token = nn.Parameter(torch.zeros(1, 1, hidden_dim))
        seq_length += 1
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                               norm_layer)
        self.seq_length = seq_length
        heads = OrderedDict()
        if representation_size is None:
            heads["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads["act"] = nn.Tanh()
            heads["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads)

        fan_in = self.conv_proj.in_channels * self.conv_proj.kernel_size[0] * self.conv_proj.kernel_size[1]
        nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
        nn.init.zeros_(self.conv_proj.bias)
        if "pre_logits" in heads:
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / self.heads.pre_logits.in_features))
            nn.init.zeros_(self.heads.pre_logits.bias)
        nn.init.zeros_(self.heads.head.weight)
        nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, _, h, w = x.shape
        p = self.patch_size
        if h != self.image_size:
            raise ValueError(f"Wrong image height! Expected {self.image_size} but got {h}!")
        if w != self.image_size:
            raise ValueError(f"Wrong image width! Expected {self.image_size} but got {w}!")
        x = self.conv_proj(x)  # (n, hidden, h/p, w/p)
        return x.reshape(n, self.hidden_dim, (h // p) * (w // p)).permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        n = x.shape[0]
        x = torch.cat([self.class_token.expand(n, -1, -1), x], dim=1)
        x = self.encoder(x)
        return self.heads(x[:, 0])


def _vit(name, enum, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, weights, kwargs):
    requested = weights
    if "pretrained" in kwargs or isinstance(weights, bool):  # the legacy flag means DEFAULT / None
        requested = "DEFAULT" if kwargs.get("pretrained", weights) is True else None
    w = W.resolve_weights(enum, requested)
    overrides = {"image_size": w.meta["min_size"][0]} if w is not None else {}

    def make(image_size=224, **kw):
        return VisionTransformer(image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, **kw)

    return build_with_weights(name, enum, weights, kwargs, make, **overrides)


def vit_b_16(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vit_b_16``."""
    return _vit("vit_b_16", W.ViT_B_16_Weights, 16, 12, 12, 768, 3072, weights, kwargs)


def vit_b_32(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vit_b_32``."""
    return _vit("vit_b_32", W.ViT_B_32_Weights, 32, 12, 12, 768, 3072, weights, kwargs)


def vit_l_16(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vit_l_16``."""
    return _vit("vit_l_16", W.ViT_L_16_Weights, 16, 24, 16, 1024, 4096, weights, kwargs)


def vit_l_32(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vit_l_32``."""
    return _vit("vit_l_32", W.ViT_L_32_Weights, 32, 24, 16, 1024, 4096, weights, kwargs)


def vit_h_14(*, weights=None, progress=True, **kwargs):
    """msnb implementation of ``torchvision.models.vit_h_14``."""
    return _vit("vit_h_14", W.ViT_H_14_Weights, 14, 32, 16, 1280, 5120, weights, kwargs)
