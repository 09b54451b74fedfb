"""``msnb scan``, ``msnb migrate`` and ``msnb support`` through the command's
own ``main()`` (argument parsing, output, exit codes); one child process
checks ``python -m msnb``."""

import json
import os

import nbformat
import pytest

from msnb.cli import COMMANDS, main

CELLS = ["import torch\nx = torch.ones(3).cuda()", "y = torch.lobpcg(x, x)"]


def test_every_subcommand_is_registered_and_has_help(capsys):
    assert set(COMMANDS) >= {"exec", "scan", "migrate", "run", "support"}
    for argv in (["--help"], *([name, "--help"] for name in COMMANDS)):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 0
    out = capsys.readouterr().out
    assert "%load_ext, %%torch_on_ascend" in out and "(session)" in out


def test_scan_table_json_and_exit_codes(make_notebook, tmp_path, capsys):
    path = make_notebook("nb.ipynb", CELLS)
    assert main(["scan", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:cell 2:1:5: MSN401 error" in out
    assert main(["scan", str(path), "--select", "MSN101", "--fail-on", "warning"]) == 0
    capsys.readouterr()
    assert main(["scan", str(path), "--format", "json", "--ignore", "MSN101,MSN401"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["findings"] == {"error": 0, "warning": 0, "info": 0}
    assert main(["scan", str(path), "--format", "html", "-o", str(tmp_path / "r.html")]) == 1
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_scan_unknown_code_and_pyproject(make_notebook, tmp_path, capsys):
    path = make_notebook("nb.ipynb", CELLS)
    assert main(["scan", str(path), "--ignore", "MSN9999"]) == 2
    assert "--ignore: unknown rule code(s) 'MSN9999'" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text('[tool.msnb]\nignore = ["MSN101", "MSN401"]\n')
    assert main(["scan", str(path)]) == 0
    (tmp_path / "pyproject.toml").write_text('[tool.msnb]\nignored = ["MSN101"]\n')
    assert main(["scan", str(path)]) == 2
    assert "unknown key(s) in [tool.msnb]: ignored" in capsys.readouterr().err


def test_scan_bad_input(bad_input, capsys):
    path, words = bad_input
    assert main(["scan", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"msnb scan: {path}: ") and words in err[0]


def test_migrate_bad_input_writes_nothing(bad_input, capsys):
    path, words = bad_input
    before = sorted(os.listdir(path.parent))
    assert main(["migrate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert sorted(os.listdir(path.parent)) == before


def test_run_bad_input(bad_input, capsys):
    path, words = bad_input
    assert main(["run", str(path), "-o", str(path.with_name("out.ipynb"))]) == 2
    assert words in capsys.readouterr().err
    assert not path.with_name("out.ipynb").exists()


def test_migrate_diff_then_write(make_notebook, tmp_path, capsys):
    path = make_notebook("nb.ipynb", CELLS)
    assert main(["migrate", str(path), "--diff"]) == 0
    captured = capsys.readouterr()
    assert "+%%torch_on_ascend" in captured.out and "would write" in captured.err
    assert not (tmp_path / "nb_msnb.ipynb").exists()
    assert main(["migrate", str(path), "-o", str(tmp_path / "out.ipynb"), "--no-fix"]) == 0
    err = capsys.readouterr().err
    assert "needs a human: cell 3:3:5 MSN101" in err and "MSN401 error" in err
    nb = nbformat.read(str(tmp_path / "out.ipynb"), as_version=nbformat.NO_CONVERT)
    assert nb.cells[2].source == "%%torch_on_ascend\nimport torch\nx = torch.ones(3).cuda()"
    assert main(["migrate", str(path), "-o", str(tmp_path / "out.ipynb")]) == 2
    assert "exists; use --force" in capsys.readouterr().err


def test_support(capsys):
    assert main(["support", "nn.Linear"]) == 0
    assert capsys.readouterr().out == "`torch.nn.Linear`: supported\n"
    assert main(["support", "torch.lobpcg"]) == 1
    assert "unsupported" in capsys.readouterr().out
    assert main(["support", "Tensor.view"]) == 0
    assert capsys.readouterr().out.startswith("`torch.Tensor.view`: partial: ")
    assert main(["support"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("# msnb support list") and "| `torch.nn.Linear` | supported |" in table


def test_support_json_matches_the_documented_schemas(capsys, documented_schema):
    import jsonschema

    assert main(["support", "F.relu", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    jsonschema.validate(answer, documented_schema("support-schema"))
    assert answer["name"] == "torch.nn.functional.relu" and answer["pytorch_api"] is True
    assert main(["support", "--format", "json"]) == 0
    jsonschema.validate(json.loads(capsys.readouterr().out), documented_schema("registry-schema"))


def test_python_m_msnb_scan_with_forked_workers(python, make_notebook, tmp_path):
    """8 files: the command forks two workers (its process runs no threads)."""
    for i in range(8):
        make_notebook(f"nb{i}.ipynb", CELLS)
    child = python("-m", "msnb", "scan", str(tmp_path), "--format", "csv", "--fail-on", "never", "--jobs", "2")
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("record,file,cell,line,col,name,count,status,message\n")
    rows = [line for line in child.stdout.splitlines() if ",MSN401," in line]
    assert len(rows) == 8 and rows[0].split(",")[1] == str(tmp_path / "nb0.ipynb")
