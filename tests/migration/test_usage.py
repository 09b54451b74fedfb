"""Which cells use torch and which APIs they call, across cells."""

from msnb.adapter import support
from msnb.migration.sources import Cell
from msnb.migration.usage import api_status, survey_cells


def survey(*sources):
    cells = [Cell(i, s) for i, s in enumerate(sources)]
    return survey_cells(cells, support.load_registry())


def test_aliases_and_tensor_methods_resolve_across_cells():
    s = survey("import torch as t\nfrom torch import nn\nimport torch.nn.functional as F",
               "x = t.ones(2, 3)\nlayer = nn.Linear(3, 1)\nlayer2 = nn.Linear(3, 1)",
               "y = F.relu(x.view(6))\nlayer.train()")
    assert dict(s[1].apis) == {"torch.ones": 1, "torch.nn.Linear": 2}
    assert dict(s[2].apis) == {"torch.nn.functional.relu": 1, "torch.Tensor.view": 1, "torch.nn.Module.train": 1}


def test_user_methods_and_unknown_names_are_not_apis():
    s = survey("import torch\nclass Net(torch.nn.Module):\n    def fit(self):\n        pass\n"
               "net = Net()\nnet.fit()\ntorch.not_a_real_function()")
    assert dict(s[0].apis) == {"torch.nn.Module": 1}


def test_torch_use_follows_names_bound_by_torch_cells():
    s = survey("import numpy as np\nbatch = np.ones(3)",  # no torch
               "import torch\nmodel = torch.nn.Linear(3, 1)",  # imports torch
               "print(model)",  # reads a name a torch cell bound
               "steps = len(batch)",  # only numpy names
               "%%bash\necho torch",  # not Python
               "%%torch_on_ascend\nz = 1")  # already a magic cell
    assert [c.uses_torch for c in s] == [False, True, True, False, False, True]
    assert s[4].magic == "bash" and not s[4].parses


def test_ipython_syntax_does_not_hide_a_cell():
    s = survey("!pip list\nimport torch\nx = torch.zeros(2)\n%time y = x + 1")
    assert s[0].uses_torch and s[0].apis["torch.zeros"] == 1


def test_status_comes_from_the_registry():
    reg = support.load_registry()
    assert api_status("torch.nn.Linear", reg)[0] == "supported"
    assert api_status("torch.Tensor.view", reg) == ("partial", reg["torch.Tensor.view"].note)
    assert api_status("torch.lobpcg", reg) == ("unsupported", "")
