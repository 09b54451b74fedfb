"""Differential tests of ``F.multi_head_attention_forward`` against real PyTorch
for every argument PyTorch's OpInfo samples and ``nn.MultiheadAttention`` use:
static_k/static_v, add_bias_kv, add_zero_attn, key_padding_mask, bool and float
attn_mask (2-D / 3-D), need_weights / average_attn_weights, separate projection
weights, is_causal (which replaces the mask when no weights are asked for),
unbatched input, and dropout under ``manual_seed`` (PyTorch's random stream)."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import compare, compare_raises

NAME = ("torch.nn.functional.multi_head_attention_forward",)
rng = np.random.default_rng(12)
E, H, L, S, N = 4, 2, 3, 5, 2
HD = E // H


def R(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _mha(t, q, k, v, w, b, ow, ob, *extra, batched=True, opts=(), seed=None, **kw):
    """Call the function with the tensors of ``extra`` bound to the names in ``opts``."""
    kw = dict(kw)
    kw.update(zip(opts, extra))
    if "bias_k" not in kw:
        kw["bias_k"] = kw["bias_v"] = None
    if kw.pop("bool_mask", False):
        kw["attn_mask"] = kw["attn_mask"] > 0.5
    if kw.pop("bool_kpm", False):
        kw["key_padding_mask"] = kw["key_padding_mask"] > 0.5
    if not batched:
        q, k, v = q[:, 0], k[:, 0], v[:, 0]
        if "key_padding_mask" in kw:
            kw["key_padding_mask"] = kw["key_padding_mask"][0]
    if seed is not None:
        t.manual_seed(seed)
    bias_k, bias_v = kw.pop("bias_k"), kw.pop("bias_v")
    add_zero_attn = kw.pop("add_zero_attn", False)
    dropout_p = kw.pop("dropout_p", 0.0)
    return t.nn.functional.multi_head_attention_forward(q, k, v, E, H, w, b, bias_k, bias_v, add_zero_attn,
                                                         dropout_p, ow, ob, **kw)


BASE = (R(L, N, E), R(S, N, E), R(S, N, E), R(3 * E, E), R(3 * E), R(E, E), R(E))
KPM = (rng.random((N, S)) > 0.6)
KPM[:, 0] = False  # a fully masked row would be nan in both: keep rows finite
MHA_ARGUMENT_CASES = [
    ("plain_eval", {"training": False}, ()),
    ("no_weights", {"training": False, "need_weights": False}, ()),
    ("per_head_weights", {"training": False, "average_attn_weights": False}, ()),
    ("float_mask_2d", {"training": False}, (("attn_mask", R(L, S)),)),
    ("float_mask_3d", {"training": False}, (("attn_mask", R(N * H, L, S)),)),
    ("bool_mask_2d", {"training": False, "bool_mask": True},
     (("attn_mask", np.concatenate([np.zeros((L, 1), np.float32), rng.random((L, S - 1)).astype(np.float32)], 1)),)),
    ("float_key_padding_mask", {"training": False}, (("key_padding_mask", R(N, S)),)),
    ("bool_key_padding_mask_and_mask", {"training": False, "bool_kpm": True},
     (("key_padding_mask", KPM.astype(np.float32)), ("attn_mask", R(L, S)))),
    ("bias_kv", {"training": False}, (("bias_k", R(1, 1, E)), ("bias_v", R(1, 1, E)))),
    ("bias_kv_1d_with_mask_and_kpm", {"training": False},
     (("bias_k", R(E)), ("bias_v", R(E)), ("attn_mask", R(L, S)), ("key_padding_mask", R(N, S)))),
    ("zero_attn_with_mask", {"training": False, "add_zero_attn": True}, (("attn_mask", R(N * H, L, S)),)),
    ("static_kv", {"training": False}, (("static_k", R(N * H, 4, HD)), ("static_v", R(N * H, 4, HD)))),
    ("static_kv_zero_attn", {"training": False, "add_zero_attn": True},
     (("static_k", R(N * H, 4, HD)), ("static_v", R(N * H, 4, HD)))),
    ("separate_proj", {"training": False, "use_separate_proj_weight": True},
     (("q_proj_weight", R(E, E)), ("k_proj_weight", R(E, E)), ("v_proj_weight", R(E, E)))),
    ("causal_with_weights_uses_mask", {"training": False, "is_causal": True}, (("attn_mask", R(L, S)),)),
    ("causal_without_weights_is_causal", {"training": False, "is_causal": True, "need_weights": False},
     (("attn_mask", R(L, S)),)),
    ("dropout_seeded", {"dropout_p": 0.5, "seed": 42}, (("attn_mask", R(L, S)),)),
    ("dropout_seeded_per_head", {"dropout_p": 0.3, "seed": 7, "average_attn_weights": False}, ()),
]


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("cid,kw,extra", MHA_ARGUMENT_CASES, ids=[c[0] for c in MHA_ARGUMENT_CASES])
def test_mha_forward_matches_torch(cid, kw, extra, batched):
    kw = dict(kw)
    if not batched and any(n in ("static_k", "static_v") for n, _ in extra):
        extra = tuple((n, a[:H]) for n, a in extra)  # unbatched: N = 1
    if not batched and any(n == "attn_mask" and a.ndim == 3 for n, _ in extra for a in [_]):
        extra = tuple((n, a[:H] if n == "attn_mask" else a) for n, a in extra)
    opts = tuple(n for n, _ in extra)
    arrays = tuple(a for _, a in extra)
    if "separate_proj" in cid:
        base = BASE[:3] + (None,) + BASE[4:]
        fn = lambda t, q, k, v, b, ow, ob, *x: _mha(t, q, k, v, None, b, ow, ob, *x, batched=batched,  # noqa: E731
                                                     opts=opts, **kw)
        compare(fn, *(a for a in base if a is not None), *arrays, rtol=1e-4, atol=1e-5, names=NAME)
        return
    compare(lambda t, *a: _mha(t, *a, batched=batched, opts=opts, **kw), *BASE, *arrays, rtol=1e-4, atol=1e-5,
            names=NAME)


@pytest.mark.parametrize("opts,arrays", [
    (("attn_mask",), (R(L, L),)),                      # wrong 2-D mask
    (("attn_mask",), (R(N * H + 1, L, S),)),           # wrong 3-D mask
    (("static_k", "static_v"), (R(N, S, HD), R(N, S, HD))),
    (("static_k", "static_v"), (R(N * H, S, E), R(N * H, S, E))),
])
def test_mha_forward_refuses_bad_shapes_as_torch(opts, arrays):
    compare_raises(lambda t, *a: _mha(t, *a, opts=opts, training=False), *BASE, *arrays, names=NAME)


def test_mha_forward_causal_needs_mask():
    compare_raises(lambda t, *a: _mha(t, *a, is_causal=True, training=False), *BASE, names=NAME)
