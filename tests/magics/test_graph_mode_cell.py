"""``--mode graph`` on an unchanged PyTorch cell: it trains as compiled graphs,
a host read in ``forward`` is named with its cell line, ``%msnb explain``
lists it, and the run report (the panel's "last cell") counts the graphs."""

from msnb.runtime import report

CELL = """%%torch_on_ascend --mode graph --no-analyze
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        y = self.fc(x)
        if y.mean().item() > 100:
            y = y * 0
        return y

torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.ones(8, 4)
losses = []
for step in range(6):
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
"""


def test_graph_cell_trains_reports_and_explains(run, ip, capsys):
    from msnb.adapter import graph
    graph.reset()
    run(CELL)
    out = capsys.readouterr().out
    losses = ip.user_ns["losses"]
    assert losses[-1] < losses[0]  # it trains
    lines = [ln for ln in out.splitlines() if "runs in PyNative" in ln]
    assert len(lines) == 1, out
    assert "Net.forward" in lines[0] and "cell line 12" in lines[0]
    assert "if y.mean().item() > 100:" in lines[0]
    last = report.last()
    assert last.mode == "graph" and last.graphs_compiled >= 2  # Linear.forward (+ backward) and SGD.step
    assert last.fallbacks and "item()" in last.fallbacks[0]
    assert last.steps >= 4 and last.step_time > 0
    from msnb.widgets import make_panel
    panel = make_panel()  # the panel's "last cell" section shows the same run
    try:
        shown = panel.status.value
        assert "<td>graph</td>" in shown and f"<td>{last.graphs_compiled}</td>" in shown
        assert "Net.forward runs in PyNative" in shown
    finally:
        panel.close()
    run("%msnb explain")
    full = capsys.readouterr().out
    assert "1 fallback(s) to PyNative" in full and "where: cell line 12" in full
    run("%msnb explain --reset")
    run("%msnb explain")
    assert "no fallbacks" in capsys.readouterr().out
    assert not run("%msnb explain --bogus", ok=False).success  # a one-line UsageError
    assert not graph.enabled()  # graph mode ends with the cell


def test_pynative_cell_does_not_compile(run, capsys):
    run("%%torch_on_ascend --no-analyze\nimport torch\nnet = torch.nn.Linear(2, 2)\n"
        "for _ in range(4):\n    net(torch.ones(1, 2)).sum().backward()\n")
    assert report.last().graphs_compiled == 0
