"""The seed's PyTorch LeNet training loop, unchanged.  Run by real PyTorch
(``python torch_train.py``) and by msnb (``msnb exec [--mode graph] torch_train.py``)."""

import json
import resource
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


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
        x = F.relu(self.conv1(x))
        x = self.pool1(x)
        x = F.relu(self.conv2(x))
        x = self.pool2(x)
        x = x.view(-1, 32 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def main(steps, warmup, batch):
    rng = np.random.default_rng(0)
    X = torch.tensor(rng.standard_normal((batch, 3, 32, 32)).astype(np.float32))
    y = torch.tensor(rng.integers(0, 10, batch))
    net = LeNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=0.0005)
    net.train()
    for i in range(warmup + steps):
        if i == warmup:
            t0 = time.perf_counter()
        out = net(X)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    loss_value = float(loss.item())
    dt = time.perf_counter() - t0
    print(json.dumps({"images_per_s": steps * batch / dt, "loss": loss_value,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
