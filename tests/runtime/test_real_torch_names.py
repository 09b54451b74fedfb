"""No silent real PyTorch: names a plain cell bound to real torch resolve to
the adapter inside a magic cell (and are given back after); imports inside
functions a magic cell defined resolve to the adapter when called later."""

from __future__ import annotations


def test_plain_cell_torch_names_are_the_adapter_inside_a_magic_cell(ip, run):
    run("import torch\nimport torch.nn as nn\nfrom torch.nn import functional as F\nfrom torch import ones\n"
        "real_torch = torch")
    run("%%torch_on_ascend --no-analyze\nnames = (torch.__name__, nn.__name__, F.__name__, ones.__module__)\n"
        "made = torch.ones(2)")
    assert ip.user_ns["names"][:3] == ("msnb.adapter.torch", "msnb.adapter.torch.nn",
                                       "msnb.adapter.torch.nn.functional")
    assert ip.user_ns["names"][3].startswith("msnb.adapter.")
    assert type(ip.user_ns["made"]).__module__.startswith("msnb.adapter.")
    assert ip.user_ns["torch"] is ip.user_ns["real_torch"]  # given back to plain cells
    assert ip.user_ns["nn"].__name__ == "torch.nn"


def test_a_name_the_magic_cell_binds_itself_stays_bound(ip, run):
    run("import torch")
    run("%%torch_on_ascend --no-analyze\nimport torch")
    assert ip.user_ns["torch"].__name__ == "msnb.adapter.torch"
    run("import torch")


def test_imports_inside_functions_of_a_magic_cell_resolve_to_the_adapter_later(ip, run):
    run("%%torch_on_ascend --no-analyze\ndef make():\n    import torch\n    import torch.nn as nn\n"
        "    return torch.__name__, nn.__name__\n")
    run("import torch\nresult = make()\nafter = torch.__name__")
    assert ip.user_ns["result"] == ("msnb.adapter.torch", "msnb.adapter.torch.nn")
    assert ip.user_ns["after"] == "torch"


def test_a_real_pytorch_tensor_reaching_an_msnb_op_is_one_clear_error(ip, run):
    run("import torch\nreal_tensor = torch.ones(2)")
    result = run("%%torch_on_ascend --no-analyze\nimport torch\ntorch.ones(2) + real_tensor", ok=False)
    error = result.error_in_exec
    assert type(error) is TypeError
    assert "real PyTorch's torch.Tensor" in str(error) and "%%torch_on_ascend" in str(error)
