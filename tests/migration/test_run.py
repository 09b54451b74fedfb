"""``run_notebook`` through a real kernel: a migrated notebook really runs on
msnb's adapter (session style, graph mode), and a failing cell stops the run
with its traceback."""

import nbformat

from msnb.migration import migrate_notebook, run_notebook

PYTORCH_CELLS = [
    "import torch\nx = torch.ones(3).cuda()\nx.add_(1)",
    "import mindspore as ms\nprint(type(x).__module__.split('.')[1], float(x.sum()), ms.get_context('mode') == 0)",
    "print('plain', 1 + 1)",
]


def test_migrated_session_style_notebook_runs_on_the_adapter(make_notebook, tmp_path):
    src = make_notebook("nb.ipynb", PYTORCH_CELLS)
    migrated = migrate_notebook(src, style="session", mode="graph").dst
    result = run_notebook(migrated, tmp_path / "out.ipynb", timeout=300, progress=False)
    assert result.ok, result.traceback
    assert result.cells_run == 4  # setup + the three cells (the summary is markdown)
    nb = nbformat.read(str(tmp_path / "out.ipynb"), as_version=4)
    text = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells if c.cell_type == "code"]
    assert "msnb defaults:" in text[0] and "mode=graph" in text[0]
    assert "adapter 6.0 True" in text[2]  # msnb's tensor, the fix x = x.add(1), graph mode from the session
    assert text[3] == "plain 2\n"


def test_a_failing_cell_stops_the_run_with_its_traceback(make_notebook, tmp_path):
    src = make_notebook("fail.ipynb", ["%%torch_on_ascend\nimport torch\nprint(torch.__name__)",
                                       "def f():\n    raise ValueError('boom in cell')\nf()",
                                       "print('not reached')"])
    result = run_notebook(src, tmp_path / "out.ipynb", timeout=300, progress=False)
    assert not result.ok and result.failed_cell == 2 and result.cells_run == 1
    assert result.error == "ValueError: boom in cell"
    assert "raise ValueError('boom in cell')" in result.traceback and "\x1b[" not in result.traceback
    nb = nbformat.read(str(tmp_path / "out.ipynb"), as_version=4)
    assert nb.cells[0].outputs[-1]["text"].strip().endswith("msnb.adapter.torch")  # %load_ext msnb ran first
    assert nb.cells[2].outputs == []
    assert len(nb.cells) == 3  # the loader cell is not added
