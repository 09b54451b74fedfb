"""``tools/count_api_usage.py``: a name PyTorch itself lacks (the program
would fail under PyTorch too) is reported apart and is not one of the top
names msnb is measured on; real names keep their ok / partial / missing status."""

import importlib.util
import json
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "count_api_usage.py"
spec = importlib.util.spec_from_file_location("count_api_usage", TOOL)
count_api_usage = importlib.util.module_from_spec(spec)
spec.loader.exec_module(count_api_usage)

PROGRAM = '''
import torch
import torch.nn as nn
from torch import functional

x = torch.randn(3)
y = torch.functional.relu(x)      # torch 2.13 has no torch.functional.relu
z = functional.relu(x)
w = torch.nn.functional.relu(x)
m = nn.ReLU()
q = torch.no_such_function(x)
torch.classes.load_library("libx.so")
'''


def _report(tmp_path, capsys, *extra):
    (tmp_path / "prog.py").write_text(PROGRAM)
    assert count_api_usage.main([str(tmp_path), *extra]) == 0
    return capsys.readouterr().out


def test_names_pytorch_lacks_are_listed_apart_and_not_counted(tmp_path, capsys):
    data = json.loads(_report(tmp_path, capsys, "--json"))
    top = {r["name"]: r for r in data["top"]}
    apart = {r["name"]: r["uses"] for r in data["not_pytorch"]}
    assert apart == {"torch.functional.relu": 2, "torch.no_such_function": 1}
    assert not set(apart) & set(top)
    assert top["torch.nn.functional.relu"]["status"] == "ok"
    assert top["torch.nn.ReLU"]["status"] == "ok"
    assert "torch.classes.load_library" in top  # a real PyTorch name msnb lacks stays counted
    assert data["pytorch_version"].startswith("2.")


def test_text_report_says_not_a_pytorch_name(tmp_path, capsys):
    out = _report(tmp_path, capsys, "--top", "3")
    head, _, tail = out.partition("not a PyTorch ")
    assert "top 3 names" in head.splitlines()[0]
    assert "torch.functional.relu" in tail and "torch.functional.relu" not in head


def test_without_pytorch_the_public_name_lists_decide():
    has = count_api_usage._listed
    assert not has("torch.no_such_function")
    assert has("torch.nn.functional.relu") and has("torch.Tensor.view") and not has("torch.Tensor.no_such")
    assert has("torch.nn.Module.train")  # attributes of classes cannot be told: counted
