"""Same initial weights, same batches: 20 SGD-momentum steps of the seed's
LeNet, and of a small LSTM model, give PyTorch's losses (within 1e-4
relative) at every step."""

import numpy as np
import torch as real

import msnb.adapter.torch as mt


def lenet(torch):
    nn, F = torch.nn, torch.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super(LeNet, self).__init__()
            self.conv1 = nn.Conv2d(3, 16, 5)
            self.pool1 = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(16, 32, 5)
            self.pool2 = nn.MaxPool2d(2, 2)
            self.fc1 = nn.Linear(32 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool1(F.relu(self.conv1(x)))
            x = self.pool2(F.relu(self.conv2(x)))
            x = x.view(-1, 32 * 5 * 5)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)
    return LeNet()


def train(torch, net, batches, steps):
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=0.0005)
    losses = []
    for i in range(steps):
        X, y = batches[i % len(batches)]
        X = torch.tensor(X)
        out = net(X)
        loss = criterion(out, torch.tensor(y))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def lockstep(make_model, batches, steps=20):
    """Train PyTorch's model and msnb's copy of it on the same batches; the
    per-step losses must agree within 1e-4 relative.  Returns both models."""
    real.manual_seed(0)
    ref = make_model(real)
    ours = make_model(mt)
    ours.load_state_dict({k: mt.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    expected = train(real, ref, batches, steps)
    got = train(mt, ours, batches, steps)
    np.testing.assert_allclose(got, expected, rtol=1e-4)
    return expected, ref, ours


def test_lenet_20_steps_match_pytorch():
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((8, 3, 32, 32)).astype(np.float32), rng.integers(0, 10, 8))
               for _ in range(4)]
    expected, ref, ours = lockstep(lenet, batches)
    assert expected[-1] < expected[0]  # the steps did train
    for k, v in ref.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-3, atol=1e-5)


def lstm_model(torch, hidden=16, num_layers=2):
    nn = torch.nn

    class Tagger(nn.Module):
        """A small sequence classifier: embedding, LSTM, linear head."""

        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 8)
            self.lstm = nn.LSTM(8, hidden, num_layers=num_layers, batch_first=True)
            self.head = nn.Linear(hidden, 5)

        def forward(self, tokens):
            out, _ = self.lstm(self.embed(tokens))
            return self.head(out[:, -1])
    return Tagger()


def test_small_lstm_20_steps_match_pytorch():
    rng = np.random.default_rng(1)
    batches = [(rng.integers(0, 20, (4, 6)), rng.integers(0, 5, 4)) for _ in range(4)]
    expected, _, _ = lockstep(lstm_model, batches)
    assert len(set(np.round(expected, 4))) > 1  # the parameters did change between steps
