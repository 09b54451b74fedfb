"""``RNNBase.flatten_parameters`` as PyTorch on CPU: it returns None and changes nothing."""

from __future__ import annotations

import numpy as np

from ..harness import mt, real


def test_lstm_flatten_parameters_changes_nothing_off_cuda():
    """word_language_model calls ``model.rnn.flatten_parameters()`` after loading: a no-op on CPU in PyTorch."""
    outs = []
    for t in (real, mt):
        t.manual_seed(0)
        lstm = t.nn.LSTM(3, 4, 2)
        before = [p.detach().numpy().copy() for p in lstm.parameters()]
        assert lstm.flatten_parameters() is None
        assert all(np.array_equal(a, p.detach().numpy()) for a, p in zip(before, lstm.parameters()))
        outs.append([tuple(p.shape) for p in lstm.parameters()])
    assert outs[0] == outs[1]
