"""Quiet on working code (issue #14.2) and no false errors (#14.1): cells that
run correctly under msnb show nothing by default (``visible`` drops advice),
and the false errors of the issue are gone."""

from __future__ import annotations

import pytest

from msnb.analyzer import Severity, analyze, visible

TUTORIAL_CELL = '''\
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = torch.from_numpy(np.random.rand(8, 1, 28, 28).astype("float32"))


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 5)
        self.fc = nn.Linear(6 * 12 * 12, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(torch.flatten(x, 1))


net = LeNet().to(device)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    loss = F.cross_entropy(net(data.to(device)), torch.zeros(8, dtype=torch.long))
    loss.backward()
    opt.step()
    print(f"{loss:.4f}", net.conv.weight.grad.shape)
pred = F.softmax(net(data), dim=1).max(dim=1).values
'''


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_unchanged_tutorial_cell_shows_nothing_by_default(mode):
    found = analyze(TUTORIAL_CELL, mode=mode)
    assert visible(found) == [], [(f.rule, f.message) for f in visible(found)]
    # the advice is still there on request, and none of it is about what msnb fixes itself
    messages = " ".join(f.message for f in visible(found, advice=True))
    assert "relu" not in messages and "from_numpy" not in messages and "is_available" not in messages


def test_tensor_grad_and_namedtuple_fields_are_not_unsupported():
    src = ("import torch\nw = torch.ones(2, 3, requires_grad=True)\n(w * 2).sum().backward()\n"
           "g = w.grad.norm()\nbest = w.max(dim=1).values\narg = torch.min(w, 0).indices\n"
           "vals, idx = w.topk(2)\nfirst = idx[0].item()\n")
    assert [f for f in analyze(src) if f.rule == "MSN401"] == []


def test_top_level_inplace_in_graph_mode_is_advice_not_error():
    src = "import torch\nx = torch.ones(3)\nx.mul_(0.5)\nw = torch.zeros(2)\nw.add_(1)\n"
    found = analyze(src, mode="graph")
    assert found and all(f.severity is Severity.INFO for f in found)
    assert visible(found) == []


def test_engine_notes_are_always_visible():
    (f,) = analyze("x = (\n")
    assert visible([f]) == [f]


def test_unsupported_tensor_method_suggests_the_supported_function():
    """With a registry that lacks a method form (msnb now has ``Tensor.softmax``), the suggestion names the function."""
    from msnb.adapter.support import load_registry
    reg = {k: v for k, v in load_registry().items() if k != "torch.Tensor.softmax"}
    (f,) = [f for f in analyze("import torch\nx = torch.ones(2, 3)\np = x.softmax(dim=1)\n", registry=reg)
            if f.rule == "MSN401"]
    assert f.severity is Severity.ERROR and "`torch.softmax(x, ...)`" in f.suggestion
