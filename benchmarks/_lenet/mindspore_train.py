"""The same LeNet step written by hand in MindSpore (the seed's section 2
"functional" style): ``value_and_grad`` + ``nn.SGD``, PyNative or ``ms.jit``."""

import json
import os
import resource
import sys
import time

os.environ.setdefault("GLOG_v", "3")
import mindspore as ms  # noqa: E402
import numpy as np  # noqa: E402
from mindspore import nn, ops  # noqa: E402


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 5, pad_mode="valid", has_bias=True)
        self.conv2 = nn.Conv2d(16, 32, 5, pad_mode="valid", has_bias=True)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Dense(32 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = x.view(-1, 32 * 5 * 5)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def main(steps, warmup, batch, graph):
    rng = np.random.default_rng(0)
    X = ms.Tensor(rng.standard_normal((batch, 3, 32, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, batch).astype(np.int32))
    net = LeNet()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.01, momentum=0.9, weight_decay=0.0005)

    def forward_fn(data, label):
        return loss_fn(net(data), label)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    if graph:
        train_step = ms.jit(train_step)
    for i in range(warmup + steps):
        if i == warmup:
            t0 = time.perf_counter()
        loss = train_step(X, y)
    loss_value = float(loss.asnumpy())
    dt = time.perf_counter() - t0
    print(json.dumps({"images_per_s": steps * batch / dt, "loss": loss_value,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "graph")
