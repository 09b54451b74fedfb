"""The suite's workloads as plain PyTorch training loops (unchanged PyTorch).

Run by real PyTorch (``python torch_workloads.py WORKLOAD STEPS WARMUP ITEM``)
and by msnb (``msnb exec [--mode graph] torch_workloads.py ...``).  ITEM is
``each`` (the loop reads ``loss.item()`` every step, as tutorials do) or
``end`` (only after the last step).  Prints one JSON line: samples/s (images
or tokens), step time, the median step of the last third of the steps
(``tail_step_ms``), first-step seconds, peak RSS."""

import json
import os
import resource
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


# the suite's LeNet is the seed's, shared with benchmarks/train_throughput.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "_lenet"))
from torch_train import LeNet  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


class LSTMLM(nn.Module):
    """A word-level language model (PyTorch's word_language_model example, small)."""

    def __init__(self, vocab=1000, emb=64, hidden=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x):
        h, _ = self.lstm(self.embed(x))
        return self.out(h)


class EncoderClassifier(nn.Module):
    def __init__(self, vocab=1000, d=64, heads=4, ff=128, layers=2, classes=2, seq=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, seq, d))
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        h = self.encoder(self.embed(x) + self.pos)
        return self.head(h.mean(dim=1))


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + idt)


class ResNet18(nn.Module):
    """torchvision's resnet18 layout (7x7 stem, max pool, 4 stages of 2 blocks), written out so that
    real PyTorch needs no torchvision."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [Block(cin, cout, stride), Block(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(x.mean(dim=(2, 3)))


#: name: (model factory, input maker, target maker, unit per sample, optimizer, clip max_norm)
def workloads(rng):
    img = lambda n: torch.tensor(rng.standard_normal((n, 3, 32, 32)).astype(np.float32))  # noqa: E731
    cls = lambda n, k: torch.tensor(rng.integers(0, k, n))  # noqa: E731
    tok = lambda n, s: torch.tensor(rng.integers(0, 1000, (n, s)))  # noqa: E731
    return {
        "lenet": dict(model=LeNet, x=lambda: img(128), y=lambda: cls(128, 10), per_step=128, unit="images",
                      opt=lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9, weight_decay=5e-4), clip=None),
        "mlp": dict(model=MLP, x=lambda: torch.tensor(rng.standard_normal((100, 784)).astype(np.float32)),
                    y=lambda: cls(100, 10), per_step=100, unit="images",
                    opt=lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9), clip=None),
        "lstm_lm": dict(model=LSTMLM, x=lambda: tok(20, 35), y=lambda: tok(20, 35), per_step=20 * 35, unit="tokens",
                        opt=lambda p: torch.optim.SGD(p, lr=1.0), clip=0.25),
        "transformer": dict(model=EncoderClassifier, x=lambda: tok(32, 32), y=lambda: cls(32, 2), per_step=32 * 32,
                            unit="tokens", opt=lambda p: torch.optim.Adam(p, lr=1e-3), clip=1.0),
        "resnet18": dict(model=ResNet18, x=lambda: img(16), y=lambda: cls(16, 10), per_step=16, unit="images",
                         opt=lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9, weight_decay=5e-4), clip=None),
    }


def main(name, steps, warmup, item):
    torch.manual_seed(0)
    w = workloads(np.random.default_rng(0))[name]
    model = w["model"]()
    X, y = w["x"](), w["y"]()
    criterion = nn.CrossEntropyLoss()
    optimizer = w["opt"](model.parameters())
    model.train()
    losses, times = [], []
    t_start = time.perf_counter()
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        out = model(X)
        loss = criterion(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        if w["clip"] is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), w["clip"])
        optimizer.step()
        if item == "each":
            losses.append(loss.item())
        times.append(time.perf_counter() - t0)
        if i == warmup - 1:
            t_warm, c_warm = time.perf_counter(), time.process_time()
        if i == 0:
            first = time.perf_counter() - t_start
    final = loss.item()
    dt = time.perf_counter() - t_warm
    cpu = time.process_time() - c_warm
    steady = sorted(times[warmup:])[len(times[warmup:]) // 2]
    # the last third of the steps: msnb graph mode's automatic choice has been made by then
    tail = sorted(times[-max(3, steps // 3):])
    print(json.dumps({"samples_per_s": steps * w["per_step"] / dt, "unit": w["unit"], "step_ms": 1000 * dt / steps,
                      "cpu_ms_per_step": 1000 * cpu / steps,
                      "median_step_ms": 1000 * steady, "tail_step_ms": 1000 * tail[len(tail) // 2], "first_steps_s": sum(times[:warmup]),
                      "first_step_s": first, "loss": final,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "each")
