"""Dropout masks, every ``nn.init`` function and every module's default
initialisation draw what PyTorch draws after the same seed."""

import math

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

from .test_diff_samplers import same

X = np.random.default_rng(0).standard_normal((4, 6, 5, 3)).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 11])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_masks(seed, p):
    same(lambda t: t.nn.functional.dropout(t.tensor(X), p), seed)
    same(lambda t: t.nn.Dropout(p)(t.tensor(X)), seed)
    same(lambda t: t.nn.Dropout2d(p)(t.tensor(X)), seed)
    same(lambda t: t.nn.functional.dropout1d(t.tensor(X[0, :, :, 0]), p), seed)  # unbatched
    same(lambda t: t.nn.Dropout3d(p)(t.tensor(X)), seed)
    same(lambda t: t.nn.AlphaDropout(p)(t.tensor(X)), seed)
    same(lambda t: t.nn.FeatureAlphaDropout(p)(t.tensor(X)), seed)


def test_dropout_in_eval_draws_nothing():
    same(lambda t: t.cat([t.nn.Dropout(0.5).eval()(t.tensor(X)).reshape(-1), t.rand(2)]), 4)


INITS = [
    ("uniform_", lambda i, w: i.uniform_(w, -0.3, 0.8)),
    ("normal_", lambda i, w: i.normal_(w, 0.2, 1.5)),
    ("xavier_uniform_", lambda i, w: i.xavier_uniform_(w, gain=1.3)),
    ("xavier_normal_", lambda i, w: i.xavier_normal_(w)),
    ("kaiming_uniform_", lambda i, w: i.kaiming_uniform_(w, a=math.sqrt(5))),
    ("kaiming_uniform_fan_out", lambda i, w: i.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")),
    ("kaiming_normal_", lambda i, w: i.kaiming_normal_(w, nonlinearity="relu")),
    ("trunc_normal_", lambda i, w: i.trunc_normal_(w, std=0.5)),
    ("trunc_normal_narrow", lambda i, w: i.trunc_normal_(w, mean=0.1, std=1.0, a=-0.2, b=0.3)),
    ("sparse_", lambda i, w: i.sparse_(w, 0.4)),
    ("eye_", lambda i, w: i.eye_(w)),
    ("constant_", lambda i, w: i.constant_(w, 0.25)),
]


@pytest.mark.parametrize("name,fn", INITS, ids=[n for n, _ in INITS])
@pytest.mark.parametrize("shape", [(3, 5), (40, 17)])
def test_init_functions(name, fn, shape):
    def run(t):
        w = t.empty(*shape)
        fn(t.nn.init, w)
        return t.cat([w.reshape(-1), t.rand(2)])  # the stream after the init agrees too
    same(run, 5)


def modules(t):
    nn = t.nn
    return [nn.Linear(7, 5), nn.Bilinear(3, 4, 5), nn.Conv1d(2, 3, 5), nn.Conv2d(3, 4, 3, groups=1),
            nn.Conv3d(2, 2, 2), nn.ConvTranspose2d(3, 2, 3), nn.Embedding(10, 4, padding_idx=1),
            nn.RNN(3, 4), nn.GRU(3, 5, num_layers=2), nn.LSTM(4, 6, num_layers=2, bidirectional=True),
            nn.LSTMCell(3, 4), nn.GRUCell(3, 4), nn.RNNCell(3, 4), nn.BatchNorm2d(3), nn.LayerNorm(4),
            nn.GroupNorm(2, 4), nn.PReLU(), nn.MultiheadAttention(8, 2), nn.TransformerEncoderLayer(8, 2, 16)]


def test_every_module_default_initialisation():
    real.manual_seed(8)
    mt.manual_seed(8)
    for r, m in zip(modules(real), modules(mt)):
        sr, sm = r.state_dict(), m.state_dict()
        assert list(sm) == list(sr), type(m).__name__
        for k in sr:
            np.testing.assert_array_equal(sm[k].numpy(), sr[k].numpy(), err_msg=f"{type(m).__name__}.{k}")
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), real.get_rng_state().numpy())
