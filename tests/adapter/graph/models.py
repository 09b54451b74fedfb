"""Small models and a training loop written as a PyTorch user writes them."""

import numpy as np

import msnb.adapter.torch as torch

nn, F = torch.nn, torch.nn.functional


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        return self.fc2(F.relu(self.fc1(x)))


class MLP(nn.Module):
    def __init__(self, d_in=20, hidden=32, d_out=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, d_out))

    def forward(self, x):
        return self.net(x)


def batches(shape, classes, n=4, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((batch, *shape)).astype(np.float32), rng.integers(0, classes, batch))
            for _ in range(n)]


def train(make, data, steps=20, opt="sgd", lr=0.05, sched=None, clip=None):
    """Losses of ``steps`` steps of the plain PyTorch loop, and the final state dict."""
    torch.manual_seed(0)
    net = make()
    criterion = nn.CrossEntropyLoss()
    if opt == "sgd":
        optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    else:
        optimizer = getattr(torch.optim, opt)(net.parameters(), lr=lr)
    scheduler = sched(optimizer) if sched else None
    losses = []
    net.train()
    for i in range(steps):
        x, y = data[i % len(data)]
        out = net(torch.tensor(x))
        loss = criterion(out, torch.tensor(y))
        optimizer.zero_grad()
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    return losses, {k: v.detach().numpy() for k, v in net.state_dict().items()}
