"""POST /msnb/analyze and /msnb/fix on a real jupyter_server: the analyzer's
findings and fixes without a kernel, authenticated, and one clear message for
each bad request."""

from __future__ import annotations

import json

from msnb.analyzer import analyze, fix

CUDA_CELL = "import torch\nx = torch.ones(2)\nx = x.cuda()\n"


def _post(server, path, payload, **kw):
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return server.request(path, body, **kw)


def test_analyze_returns_the_analyzers_findings(jupyter_server):
    status, reply = _post(jupyter_server, "/msnb/analyze", {"cells": [CUDA_CELL], "index": 0, "mode": "pynative"})
    assert status == 200
    expected = analyze(CUDA_CELL, mode="pynative")
    assert [(f["rule"], f["line"], f["col"], f["end_col"], f["severity"]) for f in reply["findings"]] == [
        (f.rule, f.line, f.col, f.end_col, str(f.severity)) for f in expected]
    cuda = next(f for f in reply["findings"] if f["line"] == 3)
    assert cuda["fixable"] is True and cuda["why"] and cuda["suggestion"]


def test_earlier_cells_are_context(jupyter_server):
    """`x` made a tensor in cell 1 makes `f"{x.sum():.4f}"` in cell 2 a finding."""
    cells = ["import torch\nx = torch.ones(3)", 'print(f"{x.sum():.4f}")']
    _, with_context = _post(jupyter_server, "/msnb/analyze", {"cells": cells, "index": 1, "mode": "graph"})
    _, alone = _post(jupyter_server, "/msnb/analyze", {"cells": cells[1:], "index": 0, "mode": "graph"})
    expected = analyze(cells[1], mode="graph", context=cells[:1])
    assert [f["rule"] for f in with_context["findings"]] == [f.rule for f in expected]
    assert expected and alone["findings"] == []
    assert {f["mode"] for f in with_context["findings"]} == {"graph"}


def test_fix_all_and_fix_one(jupyter_server):
    status, reply = _post(jupyter_server, "/msnb/fix", {"cells": [CUDA_CELL], "index": 0, "mode": "pynative"})
    assert status == 200 and reply == {"source": fix(CUDA_CELL), "changed": True}
    finding = next(f for f in analyze(CUDA_CELL) if f.fixable)
    status, one = _post(jupyter_server, "/msnb/fix", {
        "cells": [CUDA_CELL], "index": 0, "mode": "pynative",
        "finding": {"rule": finding.rule, "line": finding.line, "col": finding.col}})
    assert status == 200 and one["source"] == finding.fix and ".cuda()" not in one["source"]


def test_fix_of_a_finding_that_is_gone_is_a_conflict(jupyter_server):
    status, reply = _post(jupyter_server, "/msnb/fix", {
        "cells": ["x = 1\n"], "index": 0, "mode": "pynative", "finding": {"rule": "MSN101", "line": 1, "col": 1}})
    assert status == 409 and "MSN101" in reply["error"]


def test_missing_token_is_403(jupyter_server):
    status, _ = _post(jupyter_server, "/msnb/analyze", {"cells": ["x = 1"], "index": 0}, token=False)
    assert status == 403
    status, _ = _post(jupyter_server, "/msnb/fix", {"cells": ["x = 1"], "index": 0}, token=False)
    assert status == 403


def test_invalid_json_is_one_clear_400(jupyter_server):
    status, reply = _post(jupyter_server, "/msnb/analyze", b'{"cells": [')
    assert status == 400 and reply["error"].startswith("request body is not JSON")


def test_non_utf8_body_is_400(jupyter_server):
    status, reply = _post(jupyter_server, "/msnb/analyze", b'{"cells": ["\xff\xfe"], "index": 0}')
    assert status == 400 and "not UTF-8" in reply["error"]


def test_ten_megabyte_cell_is_refused_with_413(jupyter_server):
    big = "x = 1\n" * (10 * 1024 * 1024 // 6)
    status, reply = _post(jupyter_server, "/msnb/analyze", {"cells": [big], "index": 0})
    assert status == 413 and "at most" in reply["error"]


def test_shape_errors_name_the_field(jupyter_server):
    cases = {
        b"[1, 2]": "JSON object",
        b'{"cells": []}': "'cells'",
        b'{"cells": [1]}': "'cells'",
        b'{"cells": ["x"], "index": 3}': "'index'",
        b'{"cells": ["x"], "index": true}': "'index'",
        b'{"cells": ["x"], "mode": "eager"}': "'mode'",
    }
    for body, field in cases.items():
        status, reply = _post(jupyter_server, "/msnb/analyze", body)
        assert status == 400 and field in reply["error"], (body, reply)


def test_server_stays_healthy_after_bad_requests(jupyter_server):
    _post(jupyter_server, "/msnb/analyze", b"\x00\x01")
    status, reply = _post(jupyter_server, "/msnb/analyze", {"cells": ["x = (", "y = 1"], "index": 0})
    assert status == 200 and [f["rule"] for f in reply["findings"]] == ["MSN000"]


def _write_notebook(path, *sources):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_migrate_writes_the_migrated_notebook_beside_it(jupyter_server):
    import nbformat

    (jupyter_server.root / "sub").mkdir(exist_ok=True)
    _write_notebook(jupyter_server.root / "sub" / "train.ipynb", "import torch\nx = torch.ones(2).cuda()")
    status, reply = _post(jupyter_server, "/msnb/migrate", {"path": "sub/train.ipynb"})
    assert status == 200, reply
    assert reply["output"] == "sub/train_msnb.ipynb" and reply["changed_cells"] >= 1
    out = nbformat.read(jupyter_server.root / "sub" / "train_msnb.ipynb", as_version=4)
    assert out.cells[0].source.strip() == "%load_ext msnb"
    assert any(c.source.startswith("%%torch_on_ascend") for c in out.cells)

    status, again = _post(jupyter_server, "/msnb/migrate", {"path": "sub/train.ipynb"})
    assert status == 409 and "sub/train_msnb.ipynb exists" in again["error"]
    status, replaced = _post(jupyter_server, "/msnb/migrate", {"path": "sub/train.ipynb", "overwrite": True})
    assert status == 200 and replaced["output"] == "sub/train_msnb.ipynb"


def test_migrate_refuses_paths_outside_the_root_and_bad_files(jupyter_server):
    status, reply = _post(jupyter_server, "/msnb/migrate", {"path": "../../etc/x.ipynb"})
    assert status == 403 and "outside" in reply["error"]
    (jupyter_server.root / "broken.ipynb").write_text("not json", encoding="utf-8")
    status, reply = _post(jupyter_server, "/msnb/migrate", {"path": "broken.ipynb"})
    assert status == 400 and reply["error"].startswith("broken.ipynb:"), reply
    assert not (jupyter_server.root / "broken_msnb.ipynb").exists()
    for body, words in [({"path": "x.py"}, ".ipynb"), ({"path": "a.ipynb", "style": "all"}, "'style'")]:
        status, reply = _post(jupyter_server, "/msnb/migrate", body)
        assert status == 400 and words in reply["error"]
    status, _ = _post(jupyter_server, "/msnb/migrate", {"path": "broken.ipynb"}, token=False)
    assert status == 403
