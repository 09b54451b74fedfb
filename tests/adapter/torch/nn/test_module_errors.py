"""Differential tests of ``torch.nn`` modules' bad-argument errors against real
PyTorch (the cases of its ModuleInfo ``module_error_inputs_func`` msnb
answered differently): recurrent layers' and cells' argument types, sizes and
dtypes, BatchNorm's ``eps`` in training, HuberLoss' ``delta``, Embedding's
index dtype and sizes, circular padding's input rank, and
LinearCrossEntropyLoss' batch sizes; next to them valid calls still give
torch's values."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import compare, compare_behaviour, compare_raises

rng = np.random.default_rng(5)


def _x(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# module construction errors: fn(lib) must raise torch's type
CTOR = [
    ("RNN_bias_int", lambda t: t.nn.RNN(3, 5, bias=0)),
    ("GRU_bias_str", lambda t: t.nn.GRU(3, 5, bias="True")),
    ("LSTM_batch_first_int", lambda t: t.nn.LSTM(3, 5, batch_first=1)),
    ("RNN_batch_first_str", lambda t: t.nn.RNN(3, 5, batch_first="False")),
    ("LSTM_input_size_float", lambda t: t.nn.LSTM(3.0, 5)),
    ("GRU_input_size_str", lambda t: t.nn.GRU("10", 5)),
    ("RNN_input_size_zero", lambda t: t.nn.RNN(0, 5)),
    ("LSTM_input_size_negative", lambda t: t.nn.LSTM(-1, 5)),
    ("GRU_hidden_size_float", lambda t: t.nn.GRU(3, 5.0)),
    ("RNN_hidden_size_zero", lambda t: t.nn.RNN(10, 0, 1)),
    ("HuberLoss_complex_delta", lambda t: t.nn.HuberLoss(delta=1 + 0j)),
    ("HuberLoss_str_delta", lambda t: t.nn.HuberLoss(delta="a")),
    ("Embedding_negative_rows", lambda t: t.nn.Embedding(-1, 3)),
    ("Embedding_negative_dim", lambda t: t.nn.Embedding(3, -1)),
]


@pytest.mark.parametrize("fn", [c[1] for c in CTOR], ids=[c[0] for c in CTOR])
def test_bad_constructor_raises_torchs_type(fn):
    compare_behaviour(fn)


def _mod(make, seed=0):
    """``fn(lib, *tensors)`` that builds the module in ``lib`` (same weights: the state_dict of a
    real torch module built under a fixed seed) and calls it."""
    import torch
    torch.manual_seed(seed)
    ref = make(torch)
    state = {k: v.detach().numpy().copy() for k, v in ref.state_dict().items()}

    def fn(t, *xs):
        m = make(t)
        m.load_state_dict({k: t.tensor(v) for k, v in state.items()})
        return m(*xs)
    return fn


FORWARD = [
    ("RNNCell_hidden_width", lambda t: t.nn.RNNCell(10, 20), (_x(3, 10), _x(3, 21))),
    ("GRUCell_hidden_width", lambda t: t.nn.GRUCell(10, 20), (_x(3, 10), _x(3, 21))),
    ("GRUCell_no_bias_hidden_width", lambda t: t.nn.GRUCell(10, 20, False), (_x(3, 10), _x(3, 21))),
    ("GRUCell_input_width", lambda t: t.nn.GRUCell(10, 20), (_x(3, 11), _x(3, 20))),
    ("GRUCell_batch_mismatch", lambda t: t.nn.GRUCell(10, 20), (_x(3, 10), _x(5, 20))),
    ("GRUCell_4d_hidden", lambda t: t.nn.GRUCell(10, 20), (_x(3, 10), _x(3, 1, 1, 20))),
    ("RNN_float64_input", lambda t: t.nn.RNN(3, 5), (_x(2, 4, 3).astype(np.float64),)),
    ("GRU_float64_input", lambda t: t.nn.GRU(3, 5), (_x(2, 4, 3).astype(np.float64),)),
    ("LSTM_float64_input", lambda t: t.nn.LSTM(3, 5), (_x(2, 4, 3).astype(np.float64),)),
    ("BatchNorm1d_eps_zero_training", lambda t: t.nn.BatchNorm1d(10, eps=0.0), (_x(2, 10),)),
    ("BatchNorm2d_eps_negative_training", lambda t: t.nn.BatchNorm2d(10, eps=-1.0), (_x(2, 10, 5, 5),)),
    ("BatchNorm3d_eps_negative_eval", lambda t: t.nn.BatchNorm3d(10, eps=-1.0).eval(), (_x(2, 10, 4, 4, 4),)),
    ("Embedding_float_indices", lambda t: t.nn.Embedding(10, 3), (np.array([1.0, 2.0], np.float32),)),
    ("Embedding_uint8_indices", lambda t: t.nn.Embedding(10, 3), (np.array([1, 2], np.uint8),)),
    ("CircularPad1d_4d_input", lambda t: t.nn.CircularPad1d(3), (_x(2, 3, 4, 5),)),
    ("CircularPad2d_2d_input", lambda t: t.nn.CircularPad2d(3), (_x(2, 3),)),
    ("CircularPad3d_2d_input", lambda t: t.nn.CircularPad3d(3), (_x(2, 3),)),
    ("LinearCrossEntropyLoss_batch_mismatch", lambda t: t.nn.LinearCrossEntropyLoss(3, 2),
     (_x(4, 3), np.abs(_x(5, 2)))),
]


@pytest.mark.parametrize("make,arrays", [f[1:] for f in FORWARD], ids=[f[0] for f in FORWARD])
def test_bad_forward_raises_torchs_type(make, arrays):
    compare_raises(_mod(make), *arrays)


def test_reflect_pad_of_unsupported_rank_raises_torchs_type():
    """``F.pad`` in a non-constant mode pads 1-3 trailing dims of a (k+1)- or (k+2)-D input only."""
    compare_raises(lambda t, x: t.nn.functional.pad(x, (1, 1), mode="reflect"), _x(2, 3, 4, 5))
    compare_raises(lambda t, x: t.nn.ReflectionPad1d(1)(x), _x(2, 3, 4, 5))


GOOD = [
    ("RNNCell", lambda t: t.nn.RNNCell(4, 6), (_x(3, 4), _x(3, 6))),
    ("GRUCell_unbatched", lambda t: t.nn.GRUCell(4, 6), (_x(4), _x(6))),
    ("LSTM_batch_first", lambda t: t.nn.LSTM(3, 5, batch_first=True), (_x(2, 4, 3),)),
    ("GRU_no_bias", lambda t: t.nn.GRU(3, 5, bias=False), (_x(4, 2, 3),)),
    ("BatchNorm1d_eps_zero_eval", lambda t: t.nn.BatchNorm1d(4, eps=0.0).eval(), (_x(3, 4),)),
    ("BatchNorm1d_training", lambda t: t.nn.BatchNorm1d(4, eps=1e-3), (_x(3, 4),)),
    ("HuberLoss_int_delta", lambda t: t.nn.HuberLoss(delta=2), (_x(5), _x(5))),
    ("CircularPad1d_2d_input", lambda t: t.nn.CircularPad1d(2), (_x(3, 4),)),
    ("CircularPad2d", lambda t: t.nn.CircularPad2d(1), (_x(1, 2, 3, 4),)),
]


@pytest.mark.parametrize("make,arrays", [g[1:] for g in GOOD], ids=[g[0] for g in GOOD])
def test_valid_module_calls_match_torch(make, arrays):
    compare(_mod(make), *arrays, rtol=1e-5, atol=1e-5)


def test_embedding_int32_indices_match_torch():
    compare(_mod(lambda t: t.nn.Embedding(10, 3)), np.array([[1, 9], [0, 4]], np.int32))
