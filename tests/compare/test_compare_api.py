"""``msnb.compare(source)``: the cell under msnb and under real PyTorch (child
process), matched module call by module call.  A faithful model passes
everywhere; an op that msnb computes differently (injected here) is named as
the first divergence, at its module and cell line; a missing PyTorch is one
clear line; an exception on one side only is reported, not raised."""

import json
import textwrap

import pytest

import msnb
from msnb.adapter.torch.nn.modules import activation

MODEL = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.manual_seed(0)
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(8, 16)
            self.act = nn.Tanh()
            self.fc2 = nn.Linear(16, 4)
        def forward(self, x):
            h = self.fc1(x)
            h = self.act(h)
            return self.fc2(h)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, y = torch.randn(6, 8), torch.randint(0, 4, (6,))
    for step in range(3):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
''')


def test_faithful_model_passes_every_row(tmp_path):
    ns = {}
    report = msnb.compare(MODEL, ns, json_path=tmp_path / "table.json")
    assert report.ok, str(report)
    assert report.first_divergence is None
    modules = {r.module for r in report.rows}
    assert modules == {"Net", "Net.fc1", "Net.act", "Net.fc2"}
    assert {r.step for r in report.rows} == {0, 1, 2}
    assert [r.status for r in report.losses] == ["pass"] * 3
    assert {r.tensor for r in report.rows} == {"output[0]", "grad[0]"}
    assert "no divergence" in str(report) and "<table>" in report._repr_html_()
    full = json.loads((tmp_path / "table.json").read_text())
    assert len(full["modules"]) == len(report.rows) and len(full["losses"]) == 3
    assert float(ns["loss"].item()) == pytest.approx(report.losses[-1].msnb)  # ran in the given namespace


def test_injected_divergent_op_is_named_at_its_module_and_line(monkeypatch):
    real_forward = activation.Tanh.forward
    monkeypatch.setattr(activation.Tanh, "forward", lambda self, x: real_forward(self, x) * 1.5)
    report = msnb.compare(MODEL)
    d = report.first_divergence
    assert d is not None and d.module == "Net.act" and d.step == 0 and d.tensor == "output[0]"
    assert d.status in ("warn", "fail")
    assert d.line == MODEL.splitlines().index("        h = self.act(h)") + 1
    fc1 = next(r for r in report.rows if r.module == "Net.fc1" and r.step == 0 and r.tensor == "output[0]")
    assert fc1.status == "pass"  # upstream of the injected op nothing differs
    assert "first divergence: Net.act (cell line" in str(report)
    assert not report.ok


def test_missing_pytorch_is_one_clear_line(tmp_path):
    fake = tmp_path / "hide" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\")\n")
    import os
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "hide"))
    report = msnb.compare("import torch\nx = torch.ones(2) * 2\n", env=env)
    assert report.torch_missing and "pip install torch --index-url https://download.pytorch.org/whl/cpu" \
        in report.torch_missing
    assert str(report).splitlines()[0] == report.torch_missing


def test_exception_on_one_side_only_is_reported():
    only_msnb = "import torch\nx = torch.ones(2)\nif 'msnb' in torch.__version__:\n    raise ValueError('msnb side')\n"
    report = msnb.compare(only_msnb)
    assert report.msnb_error == {"type": "ValueError", "message": "msnb side", "line": 4}
    assert report.torch_error is None and not report.ok
    assert "msnb raised ValueError: msnb side at cell line 4" in str(report)

    ns = {"stream": (i for i in range(3))}  # a generator cannot travel to the PyTorch process
    report = msnb.compare("import torch\nx = torch.tensor(list(stream))\n", ns)
    assert report.msnb_error is None and report.torch_error["type"] == "NameError"
    assert report.not_sent == ["stream"] and "define them in this cell): stream" in str(report)
    assert ns["x"].tolist() == [0, 1, 2]
