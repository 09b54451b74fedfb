"""``%%torch_on_ascend --compare``: the cell runs once in the kernel (its side
effects happen once), PyTorch runs it in another process, and the table is
shown; ``--compare=json`` also writes the full table."""

import json

CELL = """%%torch_on_ascend --compare=json
import torch
calls.append(1)
torch.manual_seed(1)
lin = torch.nn.Linear(3, 2)
out = lin(torch.randn(4, 3))
"""


def test_compare_cell_runs_once_and_shows_the_table(ip, run, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ip.user_ns["calls"] = []
    run(CELL)
    assert ip.user_ns["calls"] == [1]
    shown = capsys.readouterr().out
    assert "no divergence" in shown and "Linear" in shown
    table = json.loads((tmp_path / "msnb-compare.json").read_text())
    assert table["ok"] and [r["module"] for r in table["modules"]] == ["Linear"]
    assert table["modules"][0]["line"] == 6  # the cell's own line numbering (magic line is 1)


def test_compare_is_a_cell_flag_only(ip, run):
    result = run("%torch_on_ascend --compare", ok=False)
    assert "applies to one cell" in str(result.error_in_exec)
