"""The five report formats, and the JSON output against the schema
documented in docs/cli.md (so the documentation cannot drift)."""

import csv
import io
import json
import re
import jsonschema
import pytest

from msnb.migration.formats import render
from msnb.migration.scan import scan_paths

@pytest.fixture
def report(make_notebook, tmp_path):
    nb = make_notebook("nb.ipynb", ["import torch\nx = torch.ones(3).cuda()", "y = torch.lobpcg(x, x)\ny.view(3)"])
    (tmp_path / "s.py").write_text("import torch\nprint(f'{torch.ones(1).sum():.1f}')\n")
    (tmp_path / "bad.ipynb").write_text("{")
    return scan_paths([nb, tmp_path / "s.py", tmp_path / "bad.ipynb"])


def test_json_validates_against_the_documented_schema(report, documented_schema):
    data = json.loads(render(report, "json"))
    jsonschema.validate(data, documented_schema("scan-schema"))
    assert data["summary"]["errors"] == 1 and data["files"][2]["error"].startswith("not a notebook")
    statuses = {a["status"] for f in data["files"] for a in f["apis"]}
    assert statuses == {"supported", "partial", "unsupported"}


def test_table_lists_apis_and_located_findings(report):
    text = render(report, "table")
    assert re.search(r"torch\.lobpcg\s+1\s+unsupported", text)
    assert "nb.ipynb:cell 2:1:5: MSN401 error: `torch.lobpcg` is not supported by msnb" in text
    assert "s.py:2:" in text and "bad.ipynb: error: not a notebook" in text


def test_html_is_one_self_contained_page_with_a_chart(report):
    page = render(report, "html")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert "<script" not in page and not re.search(r"(src|href)=\"https?:", page)
    assert page.count('<rect x="320"') == 2 * 2  # background and bar for each readable file
    assert "torch.lobpcg" in page


def test_csv_has_api_finding_and_error_rows(report):
    rows = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    kinds = {r["record"] for r in rows}
    assert kinds == {"api", "finding", "error"}
    fft = next(r for r in rows if r["record"] == "api" and r["name"] == "torch.lobpcg")
    assert (fft["count"], fft["status"]) == ("1", "unsupported")
    finding = next(r for r in rows if r["record"] == "finding" and r["name"] == "MSN401" and r["status"] == "error")
    assert (finding["cell"], finding["line"], finding["col"]) == ("2", "1", "5")


def test_sarif_results_rules_and_cells(report):
    doc = json.loads(render(report, "sarif"))
    assert doc["version"] == "2.1.0"
    [run] = doc["runs"]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == sorted(set(rule_ids))
    levels = {r["level"] for r in run["results"]}
    assert levels <= {"error", "warning", "note"} and "error" in levels
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    nb_result = next(r for r in run["results"] if r["ruleId"] == "MSN401" and r["level"] == "error")
    loc = nb_result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("nb.ipynb")
    assert loc["region"]["properties"] == {"cell": 2, "line": 1, "column": 5}
    assert loc["region"]["startLine"] > 10  # a line of the notebook's JSON, not of the cell
    assert nb_result["message"]["text"].startswith("cell 2, line 1:")
    assert run["invocations"][0]["executionSuccessful"] is False  # bad.ipynb


def test_unknown_format_is_refused(report):
    with pytest.raises(ValueError, match="format must be one of"):
        render(report, "xml")


def test_notebook_findings_point_into_the_json_text(make_notebook):
    """GitHub code scanning shows SARIF regions on the stored file: the
    region must cover the code in the notebook's JSON, escapes included."""
    path = make_notebook("nb.ipynb", ["import torch\ns = \"é\\t\"; x = torch.ones(2).cuda()"])
    [x] = [f for f in scan_paths([path]).findings() if f.rule == "MSN101"]
    raw = path.read_text(encoding="utf-8").split("\n")
    assert raw[x.file_line - 1][x.file_col - 1 : x.file_end_col - 1] == "torch.ones(2).cuda()"
    region = json.loads(render(scan_paths([path]), "sarif"))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (x.file_line, x.file_col)
    assert region["properties"] == {"cell": 1, "line": 2, "column": x.col}


def test_a_source_stored_as_one_string_keeps_cell_coordinates(tmp_path):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": "import torch\nx = torch.ones(2).cuda()"}]
    path = tmp_path / "one.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": cells}))
    [x] = [f for f in scan_paths([path]).findings() if f.rule == "MSN101"]
    assert x.file_line is None
    region = json.loads(render(scan_paths([path]), "sarif"))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (2, 5)
