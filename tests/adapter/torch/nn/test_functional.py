"""Differential tests of ``torch.nn.functional`` and the loss modules against
real PyTorch: values, dtypes, shapes and gradients w.r.t. every float input."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import compare
from ._modtools import check_module

rng = np.random.default_rng(2)


def R(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


X = R(3, 4, 5)
IMG = R(2, 3, 6, 6)
W2 = R(4, 3, 3, 3)
LOGITS = R(6, 5)
TGT = rng.integers(0, 5, 6).astype(np.int64)
TGT_IGN = TGT.copy()
TGT_IGN[1] = -100
TGT_IGN2 = TGT.copy()
TGT_IGN2[2] = 3
PROBS = np.exp(R(6, 5))
PROBS = (PROBS / PROBS.sum(1, keepdims=True)).astype(np.float32)
CW = (rng.random(5) + 0.5).astype(np.float32)
LOGITS_K = R(2, 5, 3, 4)
TGT_K = rng.integers(0, 5, (2, 3, 4)).astype(np.int64)
U = rng.random((4, 5)).astype(np.float32) * 0.9 + 0.05
B01 = (rng.random((4, 5)) > 0.5).astype(np.float32)
Q, K_, V = R(2, 2, 4, 8), R(2, 2, 6, 8), R(2, 2, 6, 8)
BMASK = rng.random((4, 6)) > 0.3
BMASK[:, 0] = True
CONV = dict(rtol=1e-4, atol=1e-5)
RM, RV = R(3), np.abs(R(3)) + 0.5
# weights, running stats and pos_weight are constants (torch refuses grads for them)

F_CASES = [
    ("linear", lambda t, x, w, b: t.nn.functional.linear(x, w, b), (X, R(3, 5), R(3)), {}),
    ("bilinear", lambda t, a, b, w: t.nn.functional.bilinear(a, b, w), (R(4, 3), R(4, 2), R(5, 3, 2)), {}),
    ("conv1d", lambda t, x, w: t.nn.functional.conv1d(x, w, stride=2, padding=1), (X, R(2, 4, 3)), CONV),
    ("conv2d", lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding=1), (IMG, W2, R(4)), CONV),
    ("conv3d", lambda t, x, w: t.nn.functional.conv3d(x, w, padding=(1, 0, 1)), (R(1, 2, 4, 5, 4), R(3, 2, 3, 3, 3)),
     CONV),
    ("conv_transpose1d", lambda t, x, w: t.nn.functional.conv_transpose1d(x, w, stride=2, output_padding=1),
     (X, R(4, 2, 3)), CONV),
    ("conv_transpose2d", lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1),
     (IMG, R(3, 2, 3, 3), R(2)), CONV),
    ("max_pool1d", lambda t, x: t.nn.functional.max_pool1d(x, 2), (X,), {}),
    ("max_pool2d", lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True), (IMG,), {}),
    ("max_pool2d", lambda t, x: t.nn.functional.max_pool2d(x, 2, dilation=2), (IMG,), {}),
    ("avg_pool1d", lambda t, x: t.nn.functional.avg_pool1d(x, 2, 1), (X,), {}),
    ("avg_pool2d", lambda t, x: t.nn.functional.avg_pool2d(x, 3, 2, 1, divisor_override=4), (IMG,), {}),
    ("adaptive_avg_pool1d", lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, 3), (X,), {}),
    ("adaptive_avg_pool2d", lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (4, 5)), (IMG,), {}),
    ("relu", lambda t, x: t.nn.functional.relu(x), (X,), {}),
    ("relu_", lambda t, x: t.nn.functional.relu_(x * 1), (X,), {}),
    ("relu6", lambda t, x: t.nn.functional.relu6(x * 4), (X,), {}),
    ("leaky_relu", lambda t, x: t.nn.functional.leaky_relu(x, 0.1), (X,), {}),
    ("elu", lambda t, x: t.nn.functional.elu(x, 0.5), (X,), {}),
    ("selu", lambda t, x: t.nn.functional.selu(x), (X,), {}),
    ("celu", lambda t, x: t.nn.functional.celu(x, 2.0), (X,), {}),
    ("gelu", lambda t, x: t.nn.functional.gelu(x), (X,), {}),
    ("gelu", lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), (X,), {}),
    ("silu", lambda t, x: t.nn.functional.silu(x), (X,), {}),
    ("mish", lambda t, x: t.nn.functional.mish(x), (X,), {}),
    ("sigmoid", lambda t, x: t.nn.functional.sigmoid(x), (X,), {}),
    ("tanh", lambda t, x: t.nn.functional.tanh(x), (X,), {}),
    ("softplus", lambda t, x: t.nn.functional.softplus(x * 5, beta=2, threshold=3), (X,), {}),
    ("softsign", lambda t, x: t.nn.functional.softsign(x), (X,), {}),
    ("tanhshrink", lambda t, x: t.nn.functional.tanhshrink(x), (X,), {}),
    ("hardshrink", lambda t, x: t.nn.functional.hardshrink(x, 0.4), (X,), {}),
    ("softshrink", lambda t, x: t.nn.functional.softshrink(x, 0.4), (X,), {}),
    ("hardtanh", lambda t, x: t.nn.functional.hardtanh(x, -0.3, 0.6), (X,), {}),
    ("prelu", lambda t, x, w: t.nn.functional.prelu(x, w), (X, R(4)), {}),
    ("softmax", lambda t, x: t.nn.functional.softmax(x, dim=1), (X,), {}),
    ("softmax", lambda t, x: t.nn.functional.softmax(x, -1, dtype=t.float64), (X,), {}),
    ("log_softmax", lambda t, x: t.nn.functional.log_softmax(x * 3, dim=2), (X,), {}),
    ("softmin", lambda t, x: t.nn.functional.softmin(x, 0), (X,), {}),
    ("logsigmoid", lambda t, x: t.nn.functional.logsigmoid(x * 4), (X,), {}),
    ("hardsigmoid", lambda t, x: t.nn.functional.hardsigmoid(x * 4), (X,), {}),
    ("hardswish", lambda t, x: t.nn.functional.hardswish(x * 4), (X,), {}),
    ("glu", lambda t, x: t.nn.functional.glu(x, 1), (X,), {}),
    ("threshold", lambda t, x: t.nn.functional.threshold(x, 0.2, -1.0), (X,), {}),
    ("dropout", lambda t, x: t.nn.functional.dropout(x, 0.4, training=False), (X,), {}),
    ("dropout1d", lambda t, x: t.nn.functional.dropout1d(x, 0.4, training=False), (X,), {}),
    ("dropout2d", lambda t, x: t.nn.functional.dropout2d(x, 0.0), (IMG,), {}),
    ("dropout3d", lambda t, x: t.nn.functional.dropout3d(x, 0.3, training=False), (R(1, 2, 3, 3, 3),), {}),
    ("batch_norm", lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True), (IMG, R(3), R(3)),
     {}),
    ("batch_norm", lambda t, x: t.nn.functional.batch_norm(x, t.tensor(RM), t.tensor(RV)), (IMG,), {}),
    ("layer_norm", lambda t, x, w, b: t.nn.functional.layer_norm(x, (4, 5), w, b), (X, R(4, 5), R(4, 5)), {}),
    ("group_norm", lambda t, x, w, b: t.nn.functional.group_norm(x, 3, w, b), (R(2, 6, 4), R(6), R(6)), {}),
    ("rms_norm", lambda t, x, w: t.nn.functional.rms_norm(x, (5,), w, eps=1e-6), (X, R(5)), {}),
    ("embedding", lambda t, i, w: t.nn.functional.embedding(i, w, padding_idx=1), (TGT.reshape(2, 3), R(5, 4)), {}),
    ("one_hot", lambda t, i: t.nn.functional.one_hot(i, 7), (TGT,), dict(grad=False)),
    ("pad", lambda t, x: t.nn.functional.pad(x, (1, 2, 0, 1), value=0.5), (IMG,), {}),
    ("pad", lambda t, x: t.nn.functional.pad(x, (2, 1, 1, 2), mode="reflect"), (IMG,), {}),
    ("pad", lambda t, x: t.nn.functional.pad(x, (1, 1), mode="replicate"), (X,), {}),
    ("pad", lambda t, x: t.nn.functional.pad(x, (-1, 2)), (X,), {}),
    ("normalize", lambda t, x: t.nn.functional.normalize(x, dim=-1), (X,), {}),
    ("cosine_similarity", lambda t, a, b: t.nn.functional.cosine_similarity(a, b, dim=-1), (X, R(3, 4, 5)), {}),
    ("pairwise_distance", lambda t, a, b: t.nn.functional.pairwise_distance(a, b), (R(4, 5), R(4, 5)), {}),
    ("pixel_shuffle", lambda t, x: t.nn.functional.pixel_shuffle(x, 2), (R(1, 8, 2, 3),), {}),
    ("pixel_unshuffle", lambda t, x: t.nn.functional.pixel_unshuffle(x, 2), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, scale_factor=2), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, size=(4, 9)), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.7, mode="nearest-exact"), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, size=(9, 5), mode="bilinear"), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear",
                                                             align_corners=True), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, scale_factor=(1.3, 0.7), mode="bilinear"), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, size=(8, 7), mode="bicubic"), (IMG,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, size=8, mode="linear"), (X,), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, scale_factor=2, mode="trilinear"),
     (R(1, 2, 3, 2, 3),), {}),
    ("interpolate", lambda t, x: t.nn.functional.interpolate(x, size=(3, 4), mode="area"), (IMG,), {}),
    ("scaled_dot_product_attention", lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v),
     (Q, K_, V), CONV),
    ("scaled_dot_product_attention", lambda t, q, k, v, m: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=m), (Q, K_, V, BMASK), CONV),
    ("scaled_dot_product_attention", lambda t, q, k, v, m: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=m, scale=0.2), (Q, K_, V, R(4, 6)), CONV),
    ("scaled_dot_product_attention", lambda t, q: t.nn.functional.scaled_dot_product_attention(
        q, q, q, is_causal=True), (Q,), CONV),
    # losses (functional)
    ("cross_entropy", lambda t, x, y: t.nn.functional.cross_entropy(x, y), (LOGITS, TGT), {}),
    ("cross_entropy", lambda t, x, y: t.nn.functional.cross_entropy(x, y, t.tensor(CW), ignore_index=3,
                                                                    label_smoothing=0.2), (LOGITS, TGT_IGN2), {}),
    ("cross_entropy", lambda t, x, y: t.nn.functional.cross_entropy(x, y, reduction="none", label_smoothing=0.1),
     (LOGITS, TGT_IGN), {}),
    ("cross_entropy", lambda t, x, y: t.nn.functional.cross_entropy(x, y, t.tensor(CW), reduction="sum",
                                                                    label_smoothing=0.3), (LOGITS, TGT_IGN), {}),
    ("cross_entropy", lambda t, x, p: t.nn.functional.cross_entropy(x, p), (LOGITS, PROBS), {}),
    ("cross_entropy", lambda t, x, p, w: t.nn.functional.cross_entropy(x, p, w, label_smoothing=0.1),
     (LOGITS, PROBS, CW), {}),
    ("cross_entropy", lambda t, x, y: t.nn.functional.cross_entropy(x, y), (LOGITS_K, TGT_K), {}),
    ("cross_entropy", lambda t, x, y: t.nn.functional.cross_entropy(x, y), (LOGITS[0], TGT[0]), {}),
    ("nll_loss", lambda t, x, y: t.nn.functional.nll_loss(t.log_softmax(x, 1), y, t.tensor(CW)), (LOGITS, TGT_IGN),
     {}),
    ("nll_loss", lambda t, x, y: t.nn.functional.nll_loss(x, y, reduction="none"), (LOGITS_K, TGT_K), {}),
    ("mse_loss", lambda t, a, b: t.nn.functional.mse_loss(a, b), (U, B01), {}),
    ("l1_loss", lambda t, a, b: t.nn.functional.l1_loss(a, b, reduction="sum"), (U, B01), {}),
    ("smooth_l1_loss", lambda t, a, b: t.nn.functional.smooth_l1_loss(a * 3, b, beta=0.5), (U, B01), {}),
    ("huber_loss", lambda t, a, b: t.nn.functional.huber_loss(a * 3, b, delta=0.7), (U, B01), {}),
    ("binary_cross_entropy", lambda t, a, b: t.nn.functional.binary_cross_entropy(a, b, t.tensor(U[0])), (U, B01),
     {}),
    ("binary_cross_entropy_with_logits", lambda t, a, b: t.nn.functional.binary_cross_entropy_with_logits(
        a, b, pos_weight=t.tensor(CW)), (R(4, 5, scale=3), B01), {}),
    ("kl_div", lambda t, a, b: t.nn.functional.kl_div(t.log_softmax(a, 1), b, reduction="batchmean"),
     (LOGITS, PROBS), {}),
    ("kl_div", lambda t, a, b: t.nn.functional.kl_div(a, b, reduction="none", log_target=True),
     (LOGITS, np.log(PROBS)), {}),
]


@pytest.mark.parametrize("name,fn,inputs,opts", F_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(F_CASES)])
def test_functional_matches_torch(name, fn, inputs, opts):
    compare(fn, *inputs, names=(f"torch.nn.functional.{name}",), **opts)


def test_multi_head_attention_forward_direct():
    E = 6
    q, kv = R(3, 2, E), R(4, 2, E)

    def fn(t, q, kv, w, b, ow, ob):
        return t.nn.functional.multi_head_attention_forward(q, kv, kv, E, 3, w, b, None, None, False, 0.0, ow, ob,
                                                            training=False)
    compare(fn, q, kv, R(3 * E, E), R(3 * E), R(E, E), R(E), rtol=1e-4, atol=1e-5,
            names=("torch.nn.functional.multi_head_attention_forward",))


LOSS_CASES = [
    ("CrossEntropyLoss", lambda t: t.nn.CrossEntropyLoss(), (LOGITS, TGT)),
    ("CrossEntropyLoss", lambda t: t.nn.CrossEntropyLoss(t.tensor(CW), ignore_index=2, label_smoothing=0.1),
     (LOGITS, TGT)),
    ("CrossEntropyLoss", lambda t: t.nn.CrossEntropyLoss(reduction="none"), (LOGITS, PROBS)),
    ("NLLLoss", lambda t: t.nn.NLLLoss(t.tensor(CW), reduction="sum"), (LOGITS, TGT_IGN)),
    ("MSELoss", lambda t: t.nn.MSELoss(), (U, B01)),
    ("MSELoss", lambda t: t.nn.MSELoss(reduction="none"), (U, B01)),
    ("L1Loss", lambda t: t.nn.L1Loss(), (U, B01)),
    ("SmoothL1Loss", lambda t: t.nn.SmoothL1Loss(beta=0.3), (U, B01)),
    ("HuberLoss", lambda t: t.nn.HuberLoss(delta=0.4), (U, B01)),
    ("BCELoss", lambda t: t.nn.BCELoss(), (U, B01)),
    ("BCELoss", lambda t: t.nn.BCELoss(weight=t.tensor(U[1]), reduction="sum"), (U, B01)),
    ("BCEWithLogitsLoss", lambda t: t.nn.BCEWithLogitsLoss(pos_weight=t.tensor(CW)), (R(4, 5), B01)),
    ("KLDivLoss", lambda t: t.nn.KLDivLoss(reduction="batchmean"), (LOGITS, PROBS)),
    ("KLDivLoss", lambda t: t.nn.KLDivLoss(reduction="sum", log_target=True), (LOGITS, np.log(PROBS))),
]


@pytest.mark.parametrize("name,make,inputs", LOSS_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(LOSS_CASES)])
def test_loss_module_matches_torch(name, make, inputs):
    check_module(make, *inputs, names=(f"torch.nn.{name}",))


def test_interpolate_and_pool_errors_match_torch():
    import torch as real
    import msnb.adapter.torch as mt
    for lib in (real, mt):
        x = lib.tensor(IMG)
        with pytest.raises(ValueError, match="only one of size or scale_factor"):
            lib.nn.functional.interpolate(x, size=3, scale_factor=2)
        with pytest.raises(ValueError, match="align_corners option can only be set"):
            lib.nn.functional.interpolate(x, size=3, align_corners=True)
        with pytest.raises(RuntimeError, match="pad should be at most half"):
            lib.nn.functional.max_pool2d(x, 2, padding=2)
        with pytest.raises(RuntimeError, match="label_smoothing must be between"):
            lib.nn.functional.cross_entropy(lib.tensor(LOGITS), lib.tensor(TGT), label_smoothing=1.5)
