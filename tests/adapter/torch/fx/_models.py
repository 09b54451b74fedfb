"""Modules and functions traced in both libraries by the torch.fx tests: each
builder takes the library (real torch or msnb's adapter) and returns the same
program written against it."""

from __future__ import annotations

import numpy as np


def nested_mlp(lib):
    """Submodules, a parameter, a buffer and a plain tensor attribute, a Sequential,
    torch / functional / method calls, shape access, indexing and a dict output."""
    nn = lib.nn

    class Sub(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.register_buffer("b", lib.ones(4))

        def forward(self, x):
            return self.lin(x) + self.b

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = Sub()
            self.w = nn.Parameter(lib.tensor([0.5, -1.0, 2.0, 1.5]))
            self.c = lib.tensor([1.0, 2.0, 3.0, 4.0])
            self.seq = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))

        def forward(self, x, y=2):
            a = self.sub(x) * self.w
            b = lib.relu(a).sum(dim=1, keepdim=True)
            c = a.view(-1, 4)[0] + self.c
            d = lib.nn.functional.relu(c) + x.shape[0] + lib.cat([a, a], 1).max()
            e = self.seq(d).float()
            return {"e": e, "f": (b, y)}

    return M()


def conv_bn(lib):
    """The conv / batch-norm model of PyTorch's FX fuser tutorial (written anew)."""
    nn = lib.nn

    class Wrapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.mod = nn.BatchNorm2d(2)

        def forward(self, x):
            return self.mod(x)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 2, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(2)
            self.conv2 = nn.Conv2d(2, 2, 1)
            self.nested = nn.Sequential(nn.BatchNorm2d(2), nn.Conv2d(2, 2, 1))
            self.wrapped = Wrapped()

        def forward(self, x):
            return self.wrapped(self.nested(self.conv2(self.bn1(self.conv1(x)))))

    return M()


def functional_calls(lib):
    """torch.nn.functional calls whose recorded arguments PyTorch normalises."""
    F = lib.nn.functional

    def f(x, w):
        a = F.max_pool2d(x, 2)
        b = F.softmax(x, 1)
        c = F.dropout(x, 0.2, training=False)
        d = F.tanh(x) + F.sigmoid(x)
        e = F.adaptive_avg_pool2d(x, (1, 1))
        g = F.pad(x, (1, 1))
        h = F.interpolate(x, scale_factor=2.0)
        i = F.layer_norm(x, (4,))
        j = F.leaky_relu(x, 0.2)
        return a, b, c, d, e, g, h, i, j, lib.flatten(x, 1) @ w

    return f


def same_weights(ref, mine, mt):
    """Give ``mine`` (msnb) the parameters and buffers of ``ref`` (torch)."""
    sd = {k: mt.tensor(np.array(v.detach().numpy())) for k, v in ref.state_dict().items()}
    mine.load_state_dict(sd)
    return mine
