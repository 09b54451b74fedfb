"""The suite's workloads written by hand in MindSpore: ``value_and_grad`` and a
MindSpore optimizer (``nn.SGD`` / ``nn.Adam``), clipping with
``ops.clip_by_global_norm``; PyNative, or the whole step under ``ms.jit``.

``python mindspore_workloads.py WORKLOAD STEPS WARMUP ITEM pynative|graph``;
prints the same JSON line as ``torch_workloads.py``."""

import json
import os
import resource
import sys
import time

os.environ.setdefault("GLOG_v", "3")
import mindspore as ms  # noqa: E402
import numpy as np  # noqa: E402
from mindspore import nn, ops  # noqa: E402


# the suite's LeNet is the seed's, shared with benchmarks/train_throughput.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "_lenet"))
from mindspore_train import LeNet  # noqa: E402


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = nn.SequentialCell(nn.Dense(784, 256), nn.ReLU(), nn.Dense(256, 128), nn.ReLU(), nn.Dense(128, 10))

    def construct(self, x):
        return self.net(x)


class LSTMLM(nn.Cell):
    def __init__(self, vocab=1000, emb=64, hidden=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.out = nn.Dense(hidden, vocab)

    def construct(self, x):
        h, _ = self.lstm(self.embed(x))
        return self.out(h)


class EncoderClassifier(nn.Cell):
    def __init__(self, vocab=1000, d=64, heads=4, ff=128, layers=2, classes=2, seq=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = ms.Parameter(ms.Tensor(np.zeros((1, seq, d), np.float32)))
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Dense(d, classes)

    def construct(self, x):
        h = self.encoder(self.embed(x) + self.pos)
        return self.head(h.mean(axis=1))


class Block(nn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1, has_bias=False)
        self.bn1 = nn.BatchNorm2d(cout, momentum=0.9)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1, has_bias=False)
        self.bn2 = nn.BatchNorm2d(cout, momentum=0.9)
        self.relu = nn.ReLU()
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.SequentialCell(nn.Conv2d(cin, cout, 1, stride, has_bias=False),
                                          nn.BatchNorm2d(cout, momentum=0.9))

    def construct(self, x):
        idt = x if self.down is None else self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + idt)


class ResNet18(nn.Cell):
    """torchvision's resnet18 layout (7x7 stem, max pool, 4 stages of 2 blocks)."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.SequentialCell(nn.Conv2d(3, 64, 7, 2, pad_mode="pad", padding=3, has_bias=False),
                                      nn.BatchNorm2d(64, momentum=0.9), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, pad_mode="pad", padding=1))
        blocks, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [Block(cin, cout, stride), Block(cout, cout, 1)]
            cin = cout
        self.blocks = nn.SequentialCell(blocks)
        self.fc = nn.Dense(512, classes)

    def construct(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(x.mean(axis=(2, 3)))


def workloads(rng):
    img = lambda n: ms.Tensor(rng.standard_normal((n, 3, 32, 32)).astype(np.float32))  # noqa: E731
    cls = lambda n, k: ms.Tensor(rng.integers(0, k, n).astype(np.int32))  # noqa: E731
    tok = lambda n, s: ms.Tensor(rng.integers(0, 1000, (n, s)).astype(np.int32))  # noqa: E731
    sgd = lambda lr, m=0.0, wd=0.0: (lambda p: nn.SGD(p, learning_rate=lr, momentum=m, weight_decay=wd))  # noqa: E731
    return {
        "lenet": dict(model=LeNet, x=lambda: img(128), y=lambda: cls(128, 10), per_step=128, unit="images",
                      opt=sgd(0.01, 0.9, 5e-4), clip=None),
        "mlp": dict(model=MLP, x=lambda: ms.Tensor(rng.standard_normal((100, 784)).astype(np.float32)),
                    y=lambda: cls(100, 10), per_step=100, unit="images", opt=sgd(0.01, 0.9), clip=None),
        "lstm_lm": dict(model=LSTMLM, x=lambda: tok(20, 35), y=lambda: tok(20, 35), per_step=700, unit="tokens",
                        opt=sgd(1.0), clip=0.25),
        "transformer": dict(model=EncoderClassifier, x=lambda: tok(32, 32), y=lambda: cls(32, 2), per_step=1024,
                            unit="tokens", opt=lambda p: nn.Adam(p, learning_rate=1e-3), clip=1.0),
        "resnet18": dict(model=ResNet18, x=lambda: img(16), y=lambda: cls(16, 10), per_step=16, unit="images",
                         opt=sgd(0.01, 0.9, 5e-4), clip=None),
    }


def main(name, steps, warmup, item, graph):
    ms.set_seed(0)
    w = workloads(np.random.default_rng(0))[name]
    net = w["model"]()
    X, y = w["x"](), w["y"]()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = w["opt"](net.trainable_params())
    clip = w["clip"]
    net.set_train()

    def forward_fn(data, label):
        out = net(data)
        return loss_fn(out.reshape(-1, out.shape[-1]), label.reshape(-1))

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        if clip is not None:
            grads = ops.clip_by_global_norm(grads, clip)
        optimizer(grads)
        return loss

    if graph:
        train_step = ms.jit(train_step)
    times = []
    t_start = time.perf_counter()
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        loss = train_step(X, y)
        if item == "each":
            float(loss.asnumpy())
        times.append(time.perf_counter() - t0)
        if i == warmup - 1:
            t_warm, c_warm = time.perf_counter(), time.process_time()
        if i == 0:
            first = time.perf_counter() - t_start
    final = float(loss.asnumpy())
    dt = time.perf_counter() - t_warm
    cpu = time.process_time() - c_warm
    steady = sorted(times[warmup:])[len(times[warmup:]) // 2]
    print(json.dumps({"samples_per_s": steps * w["per_step"] / dt, "unit": w["unit"], "step_ms": 1000 * dt / steps,
                      "cpu_ms_per_step": 1000 * cpu / steps,
                      "median_step_ms": 1000 * steady, "first_steps_s": sum(times[:warmup]),
                      "first_step_s": first, "loss": final,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5] == "graph")
