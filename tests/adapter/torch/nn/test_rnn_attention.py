"""Differential tests of recurrent layers, cells, MultiheadAttention and the
Transformer encoder: PyTorch's parameter names, gate order, masks, averaged
attention weights, outputs and gradients.

Tolerances: 1e-4 relative, because every time step / attention block chains
matmuls whose accumulation order differs between MindSpore and oneDNN."""

from __future__ import annotations

import numpy as np
import pytest

from ._modtools import check_module

rng = np.random.default_rng(1)
TOL = dict(rtol=1e-4, atol=1e-5)


def R(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


SEQ = R(5, 3, 4)          # (T, B, I)
BSEQ = R(3, 5, 4)         # (B, T, I)
H0 = R(2, 3, 6, scale=0.5)
H0_BI = R(4, 3, 6, scale=0.5)
C0_BI = R(4, 3, 6, scale=0.5)

RNN_CASES = [
    ("rnn_tanh", "RNN", lambda t: t.nn.RNN(4, 6), (SEQ,), None),
    ("rnn_relu_2layer_h0", "RNN", lambda t: t.nn.RNN(4, 6, 2, "relu"), (SEQ, H0), None),
    ("rnn_bi_batch_first", "RNN", lambda t: t.nn.RNN(4, 6, num_layers=2, bidirectional=True, batch_first=True),
     (BSEQ, H0_BI), None),
    ("rnn_unbatched", "RNN", lambda t: t.nn.RNN(4, 6, bias=False), (SEQ[:, 0],), None),
    ("lstm", "LSTM", lambda t: t.nn.LSTM(4, 6), (SEQ,), None),
    ("lstm_2layer_bi_states", "LSTM", lambda t: t.nn.LSTM(4, 6, 2, bidirectional=True),
     (SEQ, H0_BI, C0_BI), lambda m, x, h, c: m(x, (h, c))),
    ("lstm_batch_first_nobias", "LSTM", lambda t: t.nn.LSTM(4, 6, batch_first=True, bias=False), (BSEQ,), None),
    ("lstm_proj", "LSTM", lambda t: t.nn.LSTM(4, 6, num_layers=2, proj_size=3), (SEQ,), None),
    ("lstm_unbatched", "LSTM", lambda t: t.nn.LSTM(4, 6, bidirectional=True), (SEQ[:, 0],), None),
    ("gru", "GRU", lambda t: t.nn.GRU(4, 6), (SEQ,), None),
    ("gru_2layer_bi_h0", "GRU", lambda t: t.nn.GRU(4, 6, 2, bidirectional=True, batch_first=True),
     (BSEQ, H0_BI), None),
    ("gru_dropout_eval", "GRU", lambda t: t.nn.GRU(4, 6, 2, dropout=0.5), (SEQ,), None),
    ("rnncell", "RNNCell", lambda t: t.nn.RNNCell(4, 6), (SEQ[0], H0[0]), None),
    ("rnncell_relu", "RNNCell", lambda t: t.nn.RNNCell(4, 6, nonlinearity="relu", bias=False), (SEQ[0],), None),
    ("lstmcell", "LSTMCell", lambda t: t.nn.LSTMCell(4, 6), (SEQ[0], H0[0], H0[1]),
     lambda m, x, h, c: m(x, (h, c))),
    ("lstmcell_unbatched", "LSTMCell", lambda t: t.nn.LSTMCell(4, 6), (SEQ[0, 0],), None),
    ("grucell", "GRUCell", lambda t: t.nn.GRUCell(4, 6), (SEQ[0], H0[0]), None),
]


@pytest.mark.parametrize("cid,name,make,inputs,call", RNN_CASES, ids=[c[0] for c in RNN_CASES])
def test_recurrent_matches_torch(cid, name, make, inputs, call):
    check_module(make, *inputs, call=call, names=(f"torch.nn.{name}",), **TOL)


def test_rnn_parameter_names_and_gate_layout():
    import torch as real
    import msnb.adapter.torch as mt
    for make in (lambda t: t.nn.LSTM(3, 5, 2, bidirectional=True, proj_size=2),
                 lambda t: t.nn.GRU(3, 5, 3, bias=False), lambda t: t.nn.RNN(3, 5, bidirectional=True)):
        r, m = make(real), make(mt)
        assert [(k, tuple(p.shape)) for k, p in r.named_parameters()] == \
            [(k, tuple(p.shape)) for k, p in m.named_parameters()]
        assert repr(r) == repr(m)
        assert r._flat_weights_names == m._flat_weights_names


E = 8
Q = R(4, 2, E)       # (L, N, E)
KV = R(6, 2, E)      # (S, N, E)
BQ = R(2, 4, E)      # batch_first
KPM = np.zeros((2, 6), dtype=bool)
KPM[0, 4:] = True
KPM[1, 5] = True
KPM_SELF = np.zeros((2, 4), dtype=bool)
KPM_SELF[1, 3] = True
CAUSAL = np.triu(np.ones((4, 4), dtype=bool), 1)
FMASK = R(4, 6, scale=0.5)


def _mha(kw=None):
    return lambda t: t.nn.MultiheadAttention(E, 2, **(kw or {}))


MHA_CASES = [
    ("self_attn", _mha(), (Q,), lambda m, q: m(q, q, q)),
    ("cross_attn_kpm", _mha(), (Q, KV, KPM), lambda m, q, kv, kpm: m(q, kv, kv, key_padding_mask=kpm)),
    ("separate_kv", _mha(), (Q, KV, KV * 0.5), lambda m, q, k, v: m(q, k, v)),
    ("per_head_weights", _mha(), (Q, KV), lambda m, q, kv: m(q, kv, kv, average_attn_weights=False)),
    ("no_weights", _mha(), (Q,), lambda m, q: m(q, q, q, need_weights=False)),
    ("bool_causal_mask", _mha(), (Q, CAUSAL), lambda m, q, mask: m(q, q, q, attn_mask=mask)),
    ("float_mask_and_kpm", _mha(), (Q, KV, FMASK, KPM),
     lambda m, q, kv, mask, kpm: m(q, kv, kv, attn_mask=mask, key_padding_mask=kpm)),
    ("batch_first", _mha(dict(batch_first=True)), (BQ, KPM_SELF),
     lambda m, q, kpm: m(q, q, q, key_padding_mask=kpm)),
    ("kdim_vdim", _mha(dict(kdim=5, vdim=3)), (Q, R(6, 2, 5), R(6, 2, 3)), lambda m, q, k, v: m(q, k, v)),
    ("bias_kv_zero_attn", _mha(dict(add_bias_kv=True, add_zero_attn=True)), (Q, KV, KPM),
     lambda m, q, kv, kpm: m(q, kv, kv, key_padding_mask=kpm)),
    ("no_bias", _mha(dict(bias=False)), (Q,), lambda m, q: m(q, q, q)),
    ("unbatched", _mha(), (Q[:, 0],), lambda m, q: m(q, q, q)),
    ("dropout_eval", _mha(dict(dropout=0.5)), (Q,), lambda m, q: m(q, q, q)),
]


@pytest.mark.parametrize("cid,make,inputs,call", MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_multihead_attention_matches_torch(cid, make, inputs, call):
    names = ("torch.nn.MultiheadAttention", "torch.nn.functional.multi_head_attention_forward")
    check_module(make, *inputs, call=call, names=names, **TOL)


def _layer(t, **kw):
    return t.nn.TransformerEncoderLayer(E, 2, dim_feedforward=16, dropout=0.0, **kw)


ENC_CASES = [
    ("post_norm", lambda t: _layer(t), (Q,), None),
    ("pre_norm_gelu", lambda t: _layer(t, norm_first=True, activation="gelu"), (Q,), None),
    ("batch_first_kpm", lambda t: _layer(t, batch_first=True), (BQ, KPM_SELF),
     lambda m, x, kpm: m(x, src_key_padding_mask=kpm)),
    ("causal_mask", lambda t: _layer(t), (Q, CAUSAL), lambda m, x, mask: m(x, src_mask=mask)),
    ("callable_activation", lambda t: _layer(t, activation=t.nn.GELU()), (Q,), None),
    ("no_bias", lambda t: _layer(t, bias=False, layer_norm_eps=1e-3), (Q,), None),
]


@pytest.mark.parametrize("cid,make,inputs,call", ENC_CASES, ids=[c[0] for c in ENC_CASES])
def test_transformer_encoder_layer_matches_torch(cid, make, inputs, call):
    check_module(make, *inputs, call=call, train=True, names=("torch.nn.TransformerEncoderLayer",), **TOL)


def test_transformer_encoder_stack_matches_torch():
    make = lambda t: t.nn.TransformerEncoder(_layer(t, batch_first=True), 2, norm=t.nn.LayerNorm(E),
                                             enable_nested_tensor=False)
    check_module(make, BQ, KPM_SELF, call=lambda m, x, kpm: m(x, src_key_padding_mask=kpm), train=True,
                 names=("torch.nn.TransformerEncoder",), **TOL)
    make2 = lambda t: t.nn.TransformerEncoder(_layer(t, norm_first=True), 3)
    check_module(make2, Q, names=("torch.nn.TransformerEncoder",), **TOL)


def test_attention_errors_match_torch():
    import torch as real
    import msnb.adapter.torch as mt
    for lib in (real, mt):
        with pytest.raises(AssertionError):
            lib.nn.MultiheadAttention(6, 4)
        m = lib.nn.MultiheadAttention(E, 2)
        q = lib.tensor(Q)
        with pytest.raises(RuntimeError, match="Need attn_mask"):
            m(q, q, q, is_causal=True)
        with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
            lib.nn.LSTM(3, 4)(lib.tensor(SEQ))


def _dlayer(t, **kw):
    return t.nn.TransformerDecoderLayer(E, 2, dim_feedforward=16, dropout=0.0, **kw)


DEC_CASES = [
    ("post_norm", lambda t: _dlayer(t), (Q, KV), None),
    ("pre_norm_gelu", lambda t: _dlayer(t, norm_first=True, activation="gelu"), (Q, KV), None),
    ("causal_tgt_mask", lambda t: _dlayer(t), (Q, KV, CAUSAL), lambda m, x, mem, mask: m(x, mem, tgt_mask=mask)),
]


@pytest.mark.parametrize("cid,make,inputs,call", DEC_CASES, ids=[c[0] for c in DEC_CASES])
def test_transformer_decoder_layer_matches_torch(cid, make, inputs, call):
    check_module(make, *inputs, call=call, train=True, names=("torch.nn.TransformerDecoderLayer",), **TOL)


def test_transformer_decoder_stack_matches_torch():
    make = lambda t: t.nn.TransformerDecoder(_dlayer(t), 2, norm=t.nn.LayerNorm(E))
    check_module(make, Q, KV, train=True, names=("torch.nn.TransformerDecoder",), **TOL)


def test_full_transformer_matches_torch():
    """PyTorch's own init (Xavier on rank > 1) differs in random draws, so the
    state is copied; masks from ``generate_square_subsequent_mask``."""
    import torch as real
    import msnb.adapter.torch as mt
    make = lambda t: t.nn.Transformer(d_model=E, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                      dim_feedforward=16, dropout=0.0, batch_first=True)
    np.testing.assert_array_equal(mt.nn.Transformer.generate_square_subsequent_mask(4).numpy(),
                                  real.nn.Transformer.generate_square_subsequent_mask(4).numpy())
    src, tgt = BQ, BQ[:, :3]

    def call(m, s, t):  # the mask is a constant (no gradient), as in real code
        lib = mt if isinstance(m, mt.nn.Module) else real
        return m(s, t, tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(3))
    check_module(make, src, tgt, call=call, train=True, names=("torch.nn.Transformer",), **TOL)
    for lib in (real, mt):
        with pytest.raises(RuntimeError, match="d_model"):
            make(lib)(lib.zeros(2, 3, E + 1), lib.zeros(2, 3, E + 1))
