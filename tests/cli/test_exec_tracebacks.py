"""``msnb exec`` prints a failing script's traceback as ``python SCRIPT`` would:
from the script's first frame, no msnb/cli, runtime or runpy frames."""


def test_traceback_starts_at_the_script(python, tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\ndef step(a):\n    return torch.matmul(a, torch.ones(4, 5))\n"
                      "step(torch.ones(2, 3))\n")
    child = python("-m", "msnb", "exec", str(script))
    assert child.returncode == 1
    tail = child.stderr[child.stderr.index("Traceback"):]
    frames = [line for line in tail.splitlines() if line.startswith("  File ")]
    assert frames[0].startswith(f'  File "{script}", line 4')
    assert all(str(script) in f for f in frames), frames
    assert "runpy" not in tail and "msnb/" not in tail
    assert tail.rstrip().endswith("RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")


def test_profile_prints_the_table_to_stderr(python, tmp_path):
    script = tmp_path / "p.py"
    script.write_text("import torch\nnet = torch.nn.Linear(3, 2)\nfor _ in range(3):\n    y = net(torch.ones(4, 3))\n")
    child = python("-m", "msnb", "exec", "--profile=lines", str(script))
    assert child.returncode == 0, child.stderr
    rows = {line.split()[0]: line.split() for line in child.stderr.splitlines() if line.startswith("torch.")}
    assert rows["torch.nn.Linear"][1] == "3" and rows["torch.ones"][1] == "3"
    assert "MindSpore kernels" in child.stderr and "host fallbacks: none" in child.stderr
    assert "    4 " in child.stderr.split("per line:")[1]
