"""``msnb exec`` runs a script like ``python SCRIPT ARGS...``, torch on the adapter."""

import shutil
import sys
import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def script_dir(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    (tmp_path / "main.py").write_text(textwrap.dedent("""
        import sys
        import helper
        import torch
        from torch.utils.data import DataLoader
        import mindspore as ms
        print("name", __name__)
        print("argv", sys.argv[1:])
        print("torch", torch.__name__, DataLoader.__module__.startswith("msnb.adapter."))
        print("helper", helper.VALUE + 1)
        print("mode", ms.get_context("mode") == ms.GRAPH_MODE)
        if __name__ == "__main__":
            sys.exit(int(sys.argv[1]))
    """))
    return tmp_path


def test_python_m_msnb_exec(python, script_dir):
    child = python("-m", "msnb", "exec", "--mode", "graph", str(script_dir / "main.py"), "3", "--flag", "x")
    assert child.returncode == 3, child.stderr
    lines = child.stdout.splitlines()
    assert lines == [
        "name __main__",
        "argv ['3', '--flag', 'x']",
        "torch msnb.adapter.torch True",
        "helper 42",
        "mode True",
    ]
    assert "msnb: running on CPU" in child.stderr


def test_console_script_and_script_exceptions(tmp_path):
    exe = shutil.which("msnb", path=str(Path(sys.executable).parent))
    assert exe, "the msnb console script is installed with the package"
    (tmp_path / "fails.py").write_text("import torch\nraise RuntimeError('script failed here')\n")
    import subprocess

    child = subprocess.run([exe, "exec", str(tmp_path / "fails.py")], capture_output=True, text=True)
    assert child.returncode == 1
    assert "script failed here" in child.stderr and "fails.py" in child.stderr


def test_missing_script_and_bad_flag(python):
    child = python("-m", "msnb", "exec", "no_such_script.py")
    assert child.returncode == 2 and "can't open file" in child.stderr
    child = python("-m", "msnb", "exec", "--mode", "eager", "x.py")
    assert child.returncode == 2 and "invalid choice: 'eager'" in child.stderr


def test_report_file_says_what_graph_mode_did(python, tmp_path):
    """``--report`` is how benchmarks read compile time of an unchanged script."""
    import json
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import torch
        net = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for _ in range(5):
            loss = net(torch.ones(4, 3)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("loss", round(loss.item(), 4))
    """))
    report = tmp_path / "report.json"
    child = python("-m", "msnb", "exec", "--mode", "graph", "--report", str(report), str(tmp_path / "train.py"))
    assert child.returncode == 0, child.stderr
    data = json.loads(report.read_text())
    assert data["mode"] == "graph" and data["ok"] is True
    assert data["graphs_compiled"] >= 3 and data["compile_time"] > 0  # Linear fwd + bwd, SGD.step
    assert data["steps"] == 4 and data["fallbacks"] == []
