"""End to end through a real kernel (nbclient): the smoke notebook, and failures.

One kernel per notebook; each notebook covers several points at once to keep
the suite fast.
"""

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

REPO = Path(__file__).resolve().parents[2]


def execute(nb, cwd):
    client = NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    return client.execute()


def text_of(cell):
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
        elif output.output_type == "error":
            parts.append(output.ename + ": " + output.evalue)
    return "".join(parts)


def test_smoke_notebook_runs_end_to_end(tmp_path):
    nb = nbformat.read(REPO / "notebooks" / "00_smoke.ipynb", as_version=4)
    execute(nb, tmp_path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.output_type == "error" for c in code for o in c.outputs)
    assert "2." in text_of(code[1])
    assert "msnb: running on CPU" in text_of(code[1])
    assert "msnb.adapter.torch msnb.adapter.torch.nn.functional" in text_of(code[2])
    assert "2." in text_of(code[3]) and "4." in text_of(code[3])
    assert "mindspore: 2.10.0" in text_of(code[4])


FAILING = [
    "%load_ext msnb",
    "import torch\nreal_before = torch.__version__\nprint(real_before)",
    "%%torch_on_ascend --mode graph\nimport mindspore as ms\nimport numpy as np\n"
    "@ms.jit\ndef f(x):\n    return x + 1\nprint(f(ms.Tensor(np.ones(2, np.float32))))",
    "import sys, mindspore as ms\nprint(sys.modules['torch'].__version__, ms.get_context('mode'))",
    "%%torch_on_ascend --mode graph\nimport torch\ny = 1\nraise ValueError('boom in cell')",
    "print('not reached')",
]


def test_failing_magic_cell_fails_the_notebook_and_kernel_state_is_restored(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in FAILING])
    with pytest.raises(CellExecutionError) as info:
        execute(nb, tmp_path)
    assert "boom in cell" in str(info.value)
    cells = nb.cells
    assert text_of(cells[1]).startswith("2.13")
    assert "[2. 2.]" in text_of(cells[2]) and "GetRealPath" not in text_of(cells[2])
    assert text_of(cells[3]).split() == [text_of(cells[1]).strip(), "1"]
    error = [o for o in cells[4].outputs if o.output_type == "error"]
    assert len(error) == 1 and error[0].ename == "ValueError"
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error[0].traceback))
    assert "raise ValueError('boom in cell')" in traceback and "line 4" in traceback
    assert f"Cell In[{cells[4].execution_count}], line 4" in traceback  # its own number, first frame
    assert "run_cell_magic" not in traceback and "msnb/" not in traceback
    assert cells[5].outputs == []


def test_nbconvert_execute_exits_nonzero_on_a_failing_magic_cell(tmp_path):
    import os
    import subprocess
    import sys

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext msnb"),
        nbformat.v4.new_code_cell("%%torch_on_ascend\nraise ValueError('nbconvert sees this')"),
    ])
    path = tmp_path / "fails.ipynb"
    nbformat.write(nb, path)
    jupyter = os.path.join(os.path.dirname(sys.executable), "jupyter")
    child = subprocess.run(
        [jupyter, "nbconvert", "--to", "notebook", "--execute", str(path), "--output", "out.ipynb"],
        capture_output=True, text=True, timeout=180, env=dict(os.environ, GLOG_v="3"),
    )
    assert child.returncode != 0
    assert "nbconvert sees this" in child.stderr
