"""``python -m msnb run``: a cell-style migrated notebook runs on the adapter
until its failing cell; exit code 1, that cell's traceback on stderr, the
executed notebook written with ``-o``."""

import nbformat


def test_run_migrated_notebook_until_the_failing_cell(python, make_notebook, tmp_path):
    src = make_notebook("nb.ipynb", ["import torch\nx = torch.ones(2).cuda()",
                                     "print(type(x).__module__)",
                                     "def check():\n    raise RuntimeError('stop here')\ncheck()",
                                     "print('never')"])
    migrated = python("-m", "msnb", "migrate", str(src))
    assert migrated.returncode == 0, migrated.stderr
    out = tmp_path / "executed.ipynb"
    child = python("-m", "msnb", "run", str(tmp_path / "nb_msnb.ipynb"), "-o", str(out), "--timeout", "300",
                   timeout=600)
    assert child.returncode == 1, child.stderr
    assert "raise RuntimeError('stop here')" in child.stderr
    assert child.stderr.rstrip().endswith("nb_msnb.ipynb: cell 5 failed: RuntimeError: stop here")
    nb = nbformat.read(str(out), as_version=4)
    assert nb.cells[3].outputs[0]["text"] == "msnb.adapter.torch._tensor\n"
    assert nb.cells[5].outputs == []  # setup, summary, then the four cells
