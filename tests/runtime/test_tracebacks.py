"""A failing magic cell shows the user's cell (its own number and line) and the
user's frames only; a MindSpore error inside an op reads as PyTorch's."""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def shown(result) -> str:
    """What IPython (and ipykernel's error message) shows for the cell's error."""
    return ANSI.sub("", "\n".join(result.error_in_exec._render_traceback_()))


def test_traceback_starts_at_the_cell_with_its_own_number_and_hides_msnb(run):
    result = run("%%torch_on_ascend --no-analyze\nimport torch\n"
                 "def helper(a):\n    return torch.matmul(a, torch.ones(4, 5))\nhelper(torch.ones(2, 3))", ok=False)
    text = shown(result)
    assert f"Cell In[{result.execution_count}], line 5" in text
    assert "line 4, in helper" in text or "line 4" in text.split("helper")[-1]
    assert "run_cell_magic" not in text
    assert "msnb/" not in text and "mindspore/" not in text
    assert type(result.error_in_exec).__name__ == "RuntimeError"


def test_mindspore_error_in_an_op_is_pytorchs_runtime_error_naming_the_call(run):
    # a channel mismatch msnb does not check before the kernel: oneDNN's refusal, through MindSpore
    result = run("%%torch_on_ascend --no-analyze\nimport torch\n"
                 "torch.nn.functional.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(3, 1, 2, 2))", ok=False)
    error = result.error_in_exec
    assert type(error) is RuntimeError
    assert str(error).startswith("torch.nn.functional.conv_transpose2d: ")
    assert "C++ Call Stack" not in str(error) and "(reported by MindSpore)" in str(error)
    assert "line 3" in shown(result)


def test_verbose_keeps_every_frame(run):
    result = run("%%torch_on_ascend --no-analyze --verbose\nimport torch\n"
                 "torch.nn.functional.conv2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 5, 5))", ok=False)
    assert not hasattr(result.error_in_exec, "_render_traceback_")
    assert type(result.error_in_exec).__module__ != "msnb"


def test_an_open_quote_in_the_magic_line_is_a_usage_error(run):
    result = run("%%torch_on_ascend --mode 'graph\nx = 1", ok=False)
    error = result.error_in_exec or result.error_before_exec
    assert type(error).__name__ == "UsageError" and "\n" not in str(error)
