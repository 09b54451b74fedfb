"""``msnb exec --compare SCRIPT``: the script runs under msnb (its output once)
and under PyTorch in another process; the comparison goes to stderr."""

import json
import textwrap


def test_exec_compare_prints_the_table_and_writes_json(python, tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import sys
        import torch
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        x, y = torch.randn(5, 4), torch.randint(0, 2, (5,))
        for _ in range(int(sys.argv[1])):
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("done", torch.__name__)
    """))
    child = python("-m", "msnb", "exec", "--compare=json", "train.py", "2", cwd=tmp_path, timeout=600)
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == ["done msnb.adapter.torch"]
    assert "no divergence" in child.stderr and "loss PyTorch" in child.stderr
    table = json.loads((tmp_path / "msnb-compare.json").read_text())
    assert table["ok"] and len(table["losses"]) == 2
    assert {r["module"] for r in table["modules"]} == {"Sequential", "Sequential.0", "Sequential.1", "Sequential.2"}
