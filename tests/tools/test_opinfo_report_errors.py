"""``tools/opinfo_report.py --errors-only`` / ``--write-expected-errors``: the figures count each
outcome once, an op matches only when all its error inputs do, and the expected-mismatches file
it writes lists exactly the cases that miss PyTorch's exception type or message, importable, with their reasons."""

import importlib.util
import runpy
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "opinfo_report.py"
spec = importlib.util.spec_from_file_location("opinfo_report", TOOL)
opinfo_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(opinfo_report)


def _row(key, status, regex=False, raised="", expected=""):
    return {"key": key, "op": key.rsplit(":error:", 1)[0], "status": status, "raised": raised, "message": "",
            "regex": regex, "reason": "", "expected": expected}


RESULTS = {r["key"]: r for r in (
    _row("a:error:0", "same", regex=True, raised="RuntimeError"),
    _row("a:error:1", "same", raised="RuntimeError"),
    _row("b:error:0", "same", regex=True, raised="IndexError"),
    _row("b:error:1", "returned", expected="torch raises RuntimeError; msnb returned a value"),
    _row("c:error:0", "other", raised="ValueError", expected="torch raises RuntimeError; msnb raised ValueError: x"),
    _row("d:error:0", "not_replayable", expected="not replayable: input not convertible"),
)}


def test_figures():
    s = opinfo_report.summarize_errors(RESULTS)
    assert (s["cases"], s["same"], s["same_and_regex"], s["returned"], s["other"], s["not_replayable"]) == \
        (6, 3, 2, 1, 1, 1)
    assert (s["ops"], s["ops_all_same"]) == (4, 1)  # only a: b returned once, c / d never matched
    assert s["other_types"] == [("ValueError", 1)]


def test_expected_file_lists_the_mismatches(tmp_path, monkeypatch):
    target = tmp_path / "expected_error_mismatches.py"
    monkeypatch.setattr(opinfo_report, "EXPECTED_ERRORS", target)
    opinfo_report.write_expected_errors(RESULTS)
    listed = runpy.run_path(str(target))["EXPECTED_ERROR_MISMATCHES"]
    # a case of the right type whose message misses PyTorch's regex is a mismatch too
    assert listed == {k: r["expected"] for k, r in RESULTS.items() if not (r["status"] == "same" and r["regex"])}
    assert "a:error:1" in listed and "a:error:0" not in listed
