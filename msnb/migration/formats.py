"""Render a :class:`~msnb.migration.scan.ScanReport`: table, JSON, HTML, CSV, SARIF.

* ``table`` - for a terminal: per file, its APIs with counts and status,
  then its findings, one ``location: CODE severity: message`` line each.
* ``json`` - :meth:`ScanReport.to_dict`; the schema is in ``docs/cli.md``.
* ``html`` - one self-contained page (no scripts, no external files) with
  an inline SVG bar chart of the support percentage per file.
* ``csv`` - one row per API use and per finding (``record`` = ``api`` or
  ``finding``), the shape of MindSpore's API scanner export.
* ``sarif`` - SARIF 2.1.0 for GitHub code scanning and editors.  A
  notebook finding's region is its position in the notebook's JSON text
  (where those tools point), and ``region.properties`` holds the cell, line
  and column in the cell, since SARIF has no notion of cells.
"""

from __future__ import annotations

import csv
import html
import io
import json

__all__ = ["FORMATS", "SEVERITIES", "render"]

FORMATS = ("table", "json", "html", "csv", "sarif")
#: Finding severities, most severe first (``--fail-on`` takes these and ``never``).
SEVERITIES = ("error", "warning", "info")

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}%"


def _table(report) -> str:
    out: list[str] = []
    for f in report.files:
        if f.error is not None:
            out.append(f"{f.path}: error: {f.error}")
            continue
        ok = sum(1 for a in f.apis if a.status != "unsupported")
        out.append(f"{f.path} ({f.kind}, {f.torch_cells} of {f.code_cells} code cells use torch): "
                   f"support {_pct(f.support_percent)} ({ok} of {len(f.apis)} APIs)")
        if f.apis:
            width = max(len(a.name) for a in f.apis)
            out.append(f"  {'API':<{width}}  {'uses':>4}  status")
            for a in f.apis:
                note = f"  ({a.note})" if a.note else ""
                out.append(f"  {a.name:<{width}}  {a.count:>4}  {a.status}{note}")
        for x in f.findings:
            fix = "  [fixable]" if x.fixable else ""
            out.append(f"  {x.location}: {x.rule} {x.severity}: {x.message}{fix}")
        out.append("")
    counts = report.counts()
    parts = [f"{n} {s}{'' if n == 1 else 's'}" for s, n in counts.items() if n]
    out.append(f"msnb scan: {len(report.files)} file(s), {len(report.errors)} unreadable, "
               f"{', '.join(parts) or 'no findings'}; support {_pct(report.support_percent())} of distinct APIs")
    return "\n".join(out) + "\n"


def _json(report) -> str:
    return json.dumps(report.to_dict(), indent=1) + "\n"


def _csv(report) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["record", "file", "cell", "line", "col", "name", "count", "status", "message"])
    for f in report.files:
        if f.error is not None:
            w.writerow(["error", f.path, "", "", "", "", "", "error", f.error])
        for a in f.apis:
            w.writerow(["api", f.path, "", "", "", a.name, a.count, a.status, a.note])
        for x in f.findings:
            w.writerow(["finding", f.path, x.cell or "", x.line, x.col, x.rule, "", x.severity, x.message])
    return buf.getvalue()


def _bar_chart(files) -> str:
    rows = [f for f in files if f.error is None]
    height = 22 * len(rows) + 10
    label_w = 320
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + 260}" height="{height}" '
             'role="img" aria-label="support per file">']
    for i, f in enumerate(rows):
        y = 5 + 22 * i
        pct = f.support_percent
        width = 0 if pct is None else 2 * pct
        color = "#2e7d32" if (pct or 0) >= 90 else "#ef6c00" if (pct or 0) >= 60 else "#c62828"
        name = html.escape(f.path if len(f.path) <= 48 else "..." + f.path[-45:])
        parts.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end" font-size="12">{name}</text>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="200" height="16" fill="#eee"/>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="{width:g}" height="16" fill="{color}"/>')
        parts.append(f'<text x="{label_w + 206}" y="{y + 13}" font-size="12">{html.escape(_pct(pct))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _html(report) -> str:
    e = html.escape
    counts = report.counts()
    body = [f"<h1>msnb migration scan</h1><p>{len(report.files)} file(s); findings: "
            + ", ".join(f"{n} {s}" for s, n in counts.items())
            + f"; support {_pct(report.support_percent())} of the distinct APIs used.</p>",
            "<h2>Support per file</h2>", _bar_chart(report.files)]
    for f in report.files:
        body.append(f"<h2>{e(f.path)}</h2>")
        if f.error is not None:
            body.append(f'<p class="error">cannot read: {e(f.error)}</p>')
            continue
        body.append(f"<p>{e(f.kind)}, {f.torch_cells} of {f.code_cells} code cells use torch; "
                    f"support {_pct(f.support_percent)}</p>")
        if f.apis:
            body.append("<table><tr><th>API</th><th>uses</th><th>status</th><th>note</th></tr>")
            body.extend(f'<tr class="{e(a.status)}"><td><code>{e(a.name)}</code></td><td>{a.count}</td>'
                        f"<td>{e(a.status)}</td><td>{e(a.note)}</td></tr>" for a in f.apis)
            body.append("</table>")
        if f.findings:
            body.append("<table><tr><th>location</th><th>rule</th><th>severity</th><th>message</th>"
                        "<th>suggestion</th></tr>")
            body.extend(f'<tr class="{e(x.severity)}"><td><code>{e(x.location)}</code></td><td>{e(x.rule)}</td>'
                        f"<td>{e(x.severity)}</td><td>{e(x.message)}</td><td>{e(x.suggestion)}</td></tr>"
                        for x in f.findings)
            body.append("</table>")
    style = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:.5em 0}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}.unsupported td,.error td{color:#c62828}"
             ".partial td,.warning td{color:#ef6c00}p.error{color:#c62828}")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>msnb scan</title>"
            f"<style>{style}</style></head><body>" + "\n".join(body) + "</body></html>\n")


def _sarif(report) -> str:
    from msnb import __version__
    from msnb.analyzer.rules import RULES_BY_CODE

    used = sorted({x.rule for x in report.findings()})
    rules = []
    for code in used:
        rule = RULES_BY_CODE.get(code)
        rules.append({
            "id": code,
            "name": rule.NAME if rule else code,
            "shortDescription": {"text": rule.MESSAGE if rule else code},
            "fullDescription": {"text": rule.WHY if rule else ""},
            "help": {"text": (rule.SUGGESTION if rule else "") + " (msnb's docs/rules.md)"},
        })
    index = {code: i for i, code in enumerate(used)}
    results = []
    for f in report.files:
        for x in f.findings:
            if x.file_line is not None:  # the position in the file's own text
                region = {"startLine": x.file_line, "startColumn": x.file_col, "endLine": x.file_end_line,
                          "endColumn": x.file_end_col}
            else:
                region = {"startLine": x.line, "startColumn": x.col, "endLine": x.end_line, "endColumn": x.end_col}
            text = x.message + ". " + x.suggestion
            if x.cell is not None:
                region["properties"] = {"cell": x.cell, "line": x.line, "column": x.col}
                text = f"cell {x.cell}, line {x.line}: {text}"
            results.append({
                "ruleId": x.rule, "ruleIndex": index[x.rule], "level": _SARIF_LEVEL[x.severity],
                "message": {"text": text},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.path.replace("\\", "/")},
                                                    "region": region}}],
            })
    notifications = [{"level": "error", "message": {"text": f"{f.path}: {f.error}"}} for f in report.errors]
    run = {
        "tool": {"driver": {"name": "msnb", "version": __version__, "rules": rules}},
        "results": results,
        "invocations": [{"executionSuccessful": not report.errors,
                         "toolExecutionNotifications": notifications}],
    }
    doc = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=1) + "\n"


_RENDERERS = {"table": _table, "json": _json, "html": _html, "csv": _csv, "sarif": _sarif}


def render(report, fmt: str = "table") -> str:
    """``report`` as text in one of :data:`FORMATS`."""
    try:
        return _RENDERERS[fmt](report)
    except KeyError:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}") from None
