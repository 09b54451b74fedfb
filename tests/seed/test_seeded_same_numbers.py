"""Seeded programs, unchanged, print PyTorch's losses: the seed's LeNet and an
LSTM tagger each build their model, data and shuffled DataLoader from
``torch.manual_seed`` alone (no weights copied from PyTorch) and train 50
steps; every loss agrees with real PyTorch's within 1e-5 relative."""

import numpy as np
import torch as real

import msnb.adapter.torch as mt

from .test_lockstep_with_pytorch import lenet
from .test_lockstep_with_pytorch import lstm_model as lockstep_lstm


def lstm_model(torch):
    """A small tagger: embedding (normal init), one LSTM layer (uniform init), linear head."""
    return lockstep_lstm(torch, hidden=12, num_layers=1)


def seeded_program(torch, make_model, make_data, steps=50, dropout=0.0):
    """The user's program: every number comes from the seed."""
    torch.manual_seed(0)
    net = make_model(torch)
    X, y = make_data(torch)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=4, shuffle=True)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.02, momentum=0.9)
    losses = []
    while len(losses) < steps:
        for xb, yb in loader:
            out = net(xb)
            if dropout:
                out = torch.nn.functional.dropout(out, dropout)
            loss = criterion(out, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return losses


def lenet_data(torch):
    return torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))


def lstm_data(torch):
    return torch.randint(0, 20, (16, 4)), torch.randint(0, 5, (16,))


def test_seeded_lenet_50_steps_print_pytorchs_losses():
    want = seeded_program(real, lenet, lenet_data)
    got = seeded_program(mt, lenet, lenet_data)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert want[-1] < want[0]


def test_seeded_lstm_with_dropout_50_steps_print_pytorchs_losses():
    want = seeded_program(real, lstm_model, lstm_data, dropout=0.2)
    got = seeded_program(mt, lstm_model, lstm_data, dropout=0.2)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert len(set(np.round(want, 4))) > 10
