"""The analyzer never raises and never stalls (issue #13.6, finding 9):
huge expressions, IPython lines, odd line endings and bytes become findings;
large cells stop at a time budget with a finding that says so; ``fix``
rewrites only the statements it edits (linear in cell size)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from msnb.analyzer import analyze, engine, fix, fixes


def _one_note(src):
    findings = analyze(src)
    assert all(f.rule.startswith("MSN") for f in findings)
    assert isinstance(fix(src), str)
    return findings


def test_huge_expressions_are_findings_not_exceptions():
    for src in ("!ls\nx = " + "-" * 10000 + "1", "x = " + "+".join(["1"] * 20000),
                "!ls\nx = " + "+".join(["1"] * 20000), "%time\n" + "(" * 5000 + ")" * 5000, "x = '\x00'\n"):
        findings = _one_note(src)
        assert len(findings) <= 1 and all(f.rule in ("MSN000", "MSN001") for f in findings), findings


def test_large_cell_stops_at_the_budget_and_says_so(monkeypatch):
    monkeypatch.setattr(engine, "SIZE_LIMIT", 1000)
    monkeypatch.setattr(engine, "LARGE_CELL_SECONDS", 0.0)
    src = "import torch\n" + "".join(f"x{i} = torch.ones(3).cuda()\n" for i in range(3000))
    findings = analyze(src)
    (note,) = [f for f in findings if f.rule == "MSN002"]
    assert "time budget" in note.message and note.line > 1
    assert len(findings) < 3000  # stopped early


def test_fix_rewrites_only_the_statements_it_edits(monkeypatch):
    """libcst runs on edited statements only (never on the whole cell): a
    statement-level rewrite in a 3,000-line cell parses just that statement."""
    parsed = []
    real = fixes._rewrite_chunk
    monkeypatch.setattr(fixes, "_rewrite_chunk", lambda chunk, *a: parsed.append(chunk) or real(chunk, *a))
    src = "import torch\nx = torch.ones(2)\nx.add_(1)\n" + "y = x * 2\n" * 3000
    out = fix(src)
    assert "x = x.add(1)" in out and parsed == ["x.add_(1)\n"]
    parsed.clear()
    many = "import torch\nx = torch.ones(2)\n" + "x.cuda()\n" * 3000
    assert fix(many).count("x.to(device)") == 3000 and parsed == []  # expression fast path, no libcst module


def test_fix_work_is_linear_when_every_statement_is_edited(monkeypatch):
    """The worst case for ``fix``: every statement rewritten.  libcst sees
    each edited statement once, alone, so its work (characters parsed) is
    proportional to the cell: twice the lines, exactly twice the parsing."""
    parsed = []
    real = fixes._rewrite_chunk
    monkeypatch.setattr(fixes, "_rewrite_chunk", lambda chunk, *a: parsed.append(chunk) or real(chunk, *a))
    work = {}
    for n in (40, 80):
        parsed.clear()
        out = fix("import torch\nx = torch.ones(2)\n" + "x.add_(1)\n" * n)
        assert out.count("x = x.add(1)") == n
        assert parsed == ["x.add_(1)\n"] * n
        work[n] = sum(map(len, parsed))
    assert work[80] == 2 * work[40]


LINES = st.sampled_from(["import torch", "x = torch.ones(3).cuda()", "%time y = 1", "!ls", "x.add_(1)",
                         "print(f'{x.sum():.2f}')", "def f(:", "x = (", "    z = 1", "if x:", "", "# msnb: ignore",
                         "y = x.max(dim=0).values", "torch.cuda.ipc_collect()", "\x00", "'''", "x = " + "-" * 300 + "1"])


@settings(max_examples=80, deadline=None)
@given(st.lists(LINES, max_size=12), st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["pynative", "graph"]))
def test_fuzz_analyze_and_fix_never_raise_and_keep_line_endings(lines, nl, mode):
    src = nl.join(lines) + nl
    findings = analyze(src, mode=mode)
    assert all(f.line >= 1 and f.col >= 1 for f in findings)
    out = fix(src, mode=mode)
    assert isinstance(out, str)
    others = {"\n", "\r\n", "\r"} - {nl}
    if out != src and nl != "\r\n":
        assert not any(o in out.replace(nl, "") for o in others if o != "\r\n")


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=300), st.sampled_from(["pynative", "graph"]))
def test_fuzz_arbitrary_text(src, mode):
    assert isinstance(analyze(src, mode=mode), list)
    assert isinstance(fix(src, mode=mode), str)
