"""%%torch_on_ascend in a real InteractiveShell: imports, scoping, flags, errors."""

import sys

import pytest


def test_issue_example_runs_on_the_adapter(run, ip, capsys):
    run("%%torch_on_ascend\nimport torch\nx = torch.ones(2, 3)\nprint(x * 2)\n")
    assert ip.user_ns["torch"].__name__ == "msnb.adapter.torch"
    out = capsys.readouterr().out
    assert "2." in out


def test_every_supported_spelling_resolves_to_the_adapter(run, ip):
    run(
        "%%torch_on_ascend\n"
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "from torch.utils.data import DataLoader\nimport torchvision\n"
        "from torchvision import datasets, transforms\n"
        "import msadapter.pytorch as ms_torch\n"
        "from msadapter.pytorch.utils.data import DataLoader as MsDataLoader\n"
        "from msadapter.torchvision import datasets as ms_datasets, transforms as ms_transforms\n"
        "import mindtorch.torch as mt_torch\n"
    )
    ns = ip.user_ns
    for name in ("torch", "nn", "F", "torchvision", "datasets", "transforms", "ms_torch",
                 "ms_datasets", "ms_transforms", "mt_torch"):
        assert ns[name].__name__.startswith("msnb.adapter."), name
    assert ns["ms_torch"] is ns["torch"] is ns["mt_torch"]
    assert ns["DataLoader"] is ns["MsDataLoader"]
    assert ns["DataLoader"].__module__.startswith("msnb.adapter.")


def test_plain_cell_gets_real_torch_and_cell_functions_keep_the_adapter(run, ip):
    run("%%torch_on_ascend\nimport torch\nimport torch.nn as nn\n"
        "def which():\n    return torch.__name__, nn.__name__\n"
        "class Holder:\n    def which(self):\n        return torch.__name__\n")
    run("import torch\nimport torch.nn as nn\nreal = torch.__version__\n")
    assert ip.user_ns["real"].startswith("2.13")
    assert ip.user_ns["torch"].__name__ == "torch"
    run("from_plain = which(), Holder().which()\n")
    assert ip.user_ns["from_plain"] == (("msnb.adapter.torch", "msnb.adapter.torch.nn"), "msnb.adapter.torch")
    assert sys.modules["torch"].__name__ == "torch"


def test_torch_in_plain_cell_after_magic_cell_is_real(run, ip):
    run("%%torch_on_ascend\nimport torch\n")
    run("import torch as t2\nplain_name = t2.__name__\n")
    assert ip.user_ns["plain_name"] == "torch"


def test_global_writes_in_cell_functions_reach_user_ns(run, ip):
    run("%%torch_on_ascend\ndef bump():\n    global best\n    best = 0.9\nbump()\nseen_in_cell = best\n")
    assert ip.user_ns["best"] == 0.9 and ip.user_ns["seen_in_cell"] == 0.9
    run("%%torch_on_ascend\ndef bump_later():\n    global later\n    later = 5\n")
    run("bump_later()")
    run("seen_later = later")
    assert ip.user_ns["seen_later"] == 5


def test_last_expression_is_the_cell_result(run):
    assert run("%%torch_on_ascend\na = 20\na + 22\n").result == 42


def test_ms_jit_function_defined_in_the_cell_compiles(run, ip, capfd):
    run(
        "%%torch_on_ascend --mode graph\n"
        "import mindspore as ms\nimport numpy as np\n"
        "@ms.jit\ndef affine(x):\n    return x * 2 + 1\n"
        "jit_out = affine(ms.Tensor(np.ones(3, np.float32))).asnumpy().tolist()\n"
    )
    assert ip.user_ns["jit_out"] == [3.0, 3.0, 3.0]
    assert "GetRealPath" not in capfd.readouterr().err  # quiet by default (point 8)


MS_LOG_LINE = (
    "[ERROR] CORE(1,7f,python):2026-11-29-07:50:26.302.214 "
    "[mindspore/core/utils/file_utils.cc:253] GetRealPath] Get realpath failed\\n"
)


@pytest.mark.parametrize("flag, shown", [("", False), ("--verbose", True)])
def test_mindspore_log_lines_only_with_verbose(run, capfd, flag, shown):
    run(f"%%torch_on_ascend {flag}\nimport os\nos.write(2, b'{MS_LOG_LINE}user text\\n')\n")
    err = capfd.readouterr().err
    assert "user text" in err
    assert ("GetRealPath" in err) is shown


def test_traceback_points_at_the_cells_own_line(run, capsys):
    result = run("%%torch_on_ascend\nok = 1\nraise ValueError('boom from cell')\n", ok=False)
    assert isinstance(result.error_in_exec, ValueError)
    tb = result.error_in_exec.__traceback__
    frames = []
    while tb:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    filename, line = frames[-1]
    assert line == 3  # line 1 is %%torch_on_ascend
    import linecache

    assert "boom from cell" in linecache.getline(filename, line)
    assert "raise ValueError('boom from cell')" in capsys.readouterr().out


def test_state_restored_after_exception_and_keyboard_interrupt(run, ip):
    import mindspore as ms

    run("import torch")
    real, mode = sys.modules["torch"], ms.get_context("mode")
    for error in ("ValueError('x')", "KeyboardInterrupt"):
        run(f"%%torch_on_ascend --mode graph --amp O2\nimport torch\nraise {error}\n", ok=False)
        assert sys.modules["torch"] is real
        assert ms.get_context("mode") == mode
        from msnb.runtime.context import active

        assert active() is None


@pytest.mark.parametrize("line", ["--bogus", "--mode eager", "--amp O5", "--device gpu", "extra"])
def test_bad_flags_are_one_line_usage_errors(run, ip, line, capsys):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError):
        ip.run_cell_magic("torch_on_ascend", line, "x = 1\n")
    result = run(f"%%torch_on_ascend {line}\nx = 1\n", ok=False)
    err = capsys.readouterr()
    text = (err.out + err.err).strip()
    assert "UsageError" in text and len(text.splitlines()) == 1
    assert not result.success


def test_help_is_generated_from_the_flag_declarations(run, ip, capsys):
    run("%%torch_on_ascend --help\nnot_run = 1\n")
    out = capsys.readouterr().out
    assert "not_run" not in ip.user_ns
    for flag in ("--mode", "--amp", "--device", "--verbose", "--no-analyze", "-h, --help"):
        assert flag in out
    assert "pynative,graph" in out and "O0,O1,O2,O3" in out


def test_mode_and_amp_apply_to_the_cell(run, ip):
    run("%%torch_on_ascend --mode graph --amp O3\n"
        "import mindspore as ms\nfrom msnb.runtime.context import active\n"
        "seen = ms.get_context('mode'), active().amp, active().target\n")
    import mindspore as ms

    assert ip.user_ns["seen"] == (ms.GRAPH_MODE, "O3", "CPU")
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_device_ascend_is_refused_here(run, capsys):
    assert not run("%%torch_on_ascend --device ascend\nx = 1\n", ok=False).success
    captured = capsys.readouterr()
    assert "cannot use Ascend" in captured.out + captured.err
