"""``scan_paths``: APIs with counts and support, located findings, rule
selection (arguments and ``[tool.msnb]``), exit codes, parallel workers."""

import pytest

from msnb.analyzer.config import ConfigError
from msnb.migration.scan import scan_paths

CELLS = ["# md: intro",
         "import torch\nx = torch.ones(3).cuda()",
         "y = torch.lobpcg(x, x)\nz = torch.lobpcg(y, y)",
         "print(f'{x.sum():.2f}')"]


def test_notebook_report(make_notebook):
    path = make_notebook("nb.ipynb", CELLS)
    [f] = scan_paths([path]).files
    assert (f.kind, f.code_cells, f.torch_cells) == ("notebook", 3, 3)
    apis = {a.name: (a.count, a.status) for a in f.apis}
    assert apis["torch.lobpcg"] == (2, "unsupported")
    assert apis["torch.ones"] == (1, "supported")
    assert f.support_percent == round(100 * (len(apis) - 1) / len(apis), 1)
    where = {x.rule: x.location for x in f.findings}
    assert where["MSN101"] == f"{path}:cell 2:2:5"
    assert where["MSN401"] == f"{path}:cell 3:1:5"


def test_script_locations_and_folder(tmp_path):
    (tmp_path / "train.py").write_text("import torch\n\nx = torch.ones(2)\nx = x.cuda()\n")
    (tmp_path / "plain.py").write_text("print('no torch')\n")
    report = scan_paths([tmp_path])
    files = {f.path.rsplit("/", 1)[-1]: f for f in report.files}
    assert files["plain.py"].apis == [] and files["plain.py"].support_percent is None
    assert [x.location for x in files["train.py"].findings] == [f"{tmp_path}/train.py:4:5"]


def test_select_ignore_and_pyproject(make_notebook, tmp_path):
    path = make_notebook("nb.ipynb", CELLS)
    rules = lambda report: sorted({x.rule for x in report.findings()})  # noqa: E731
    assert rules(scan_paths([path])) == ["MSN101", "MSN301", "MSN401"]
    assert rules(scan_paths([path], select=["MSN101"])) == ["MSN101"]
    assert rules(scan_paths([path], ignore=["MSN101", "unsupported-api"])) == ["MSN301"]
    (tmp_path / "pyproject.toml").write_text('[tool.msnb]\nignore = ["MSN301"]\n')
    assert rules(scan_paths([path])) == ["MSN101", "MSN401"]
    assert rules(scan_paths([path], ignore=["MSN101"])) == ["MSN401"]  # added to the file's
    assert rules(scan_paths([path], select=["MSN301", "MSN101"])) == ["MSN101"]  # file's ignore still applies
    with pytest.raises(ConfigError, match="--select: unknown rule code"):
        scan_paths([path], select=["MSN999"])


def test_exit_codes(make_notebook, tmp_path):
    clean = make_notebook("clean.ipynb", ["import torch\nx = torch.ones(2)"])
    dirty = make_notebook("dirty.ipynb", CELLS)
    assert scan_paths([clean]).exit_code() == 0
    report = scan_paths([dirty])
    assert report.exit_code("info") == 1 and report.exit_code("error") == 1
    assert scan_paths([dirty], select=["MSN101"]).exit_code("warning") == 0  # MSN101 is info
    assert report.exit_code("never") == 0
    assert scan_paths([clean, tmp_path / "missing.ipynb"]).exit_code() == 2


def test_parallel_workers_give_the_serial_report(make_notebook):
    paths = [make_notebook(f"nb{i}.ipynb", CELLS[: 2 + i % 3]) for i in range(9)]
    serial = scan_paths(paths, jobs=1)
    parallel = scan_paths(paths, jobs=2)
    assert parallel.to_dict() == serial.to_dict()
    assert [f.path for f in parallel.files] == [str(p) for p in paths]


def test_progress_bar_when_asked(make_notebook, capsys):
    """On a terminal (progress=None and a tty) or when asked, tqdm draws on stderr."""
    scan_paths([make_notebook("nb.ipynb", CELLS)], progress=True)
    assert "msnb scan" in capsys.readouterr().err
    scan_paths([make_notebook("nb2.ipynb", CELLS)])  # stderr is not a terminal here
    assert capsys.readouterr().err == ""
