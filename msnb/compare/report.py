"""Comparing the two sides' records: metrics, pass / warn / fail, and the table
as text (terminal), HTML (JupyterLab) and JSON (``--compare=json``).

Metrics are msprobe's: cosine similarity, maximum absolute error and maximum
relative error of each module output and of the gradient reaching it.  A row
passes when cosine > ``cosine`` (default 0.99) and MaxAbsErr < ``max_abs``
(default 1e-3); it warns when only the absolute error is over, and fails when
the cosine is not over its threshold, the shapes differ, NaNs differ, or the
other side has no such call.  Losses pass within ``loss_rtol`` relative
(default 1e-5), warn within 1e-3, and fail beyond.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["Thresholds", "Row", "LossRow", "CompareReport", "build_report", "metrics", "INSTALL_HINT"]

INSTALL_HINT = ("PyTorch is not installed in the comparison interpreter; install the CPU wheel with "
                "`pip install torch --index-url https://download.pytorch.org/whl/cpu`")
_ORDER = {"pass": 0, "warn": 1, "fail": 2}


@dataclass
class Thresholds:
    """Configurable limits (msprobe's defaults)."""

    cosine: float = 0.99
    max_abs: float = 1e-3
    loss_rtol: float = 1e-5


@dataclass
class Row:
    step: int
    module: str
    call: int
    line: int | None
    tensor: str
    cosine: float | None
    max_abs: float | None
    max_rel: float | None
    status: str
    note: str = ""


@dataclass
class LossRow:
    step: int
    msnb: float | None
    torch: float | None
    abs_err: float | None
    rel_err: float | None
    status: str


def metrics(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, str]:
    """(cosine, max abs err, max rel err, note) of msnb's ``a`` against PyTorch's ``b``."""
    if a.shape != b.shape:
        return float("nan"), float("nan"), float("nan"), f"shape {a.shape} vs {b.shape}"
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    if a.size == 0:
        return 1.0, 0.0, 0.0, ""
    na, nb = np.isnan(a), np.isnan(b)
    if (na != nb).any():
        return float("nan"), float("nan"), float("nan"), "NaN in different places"
    a, b = a[~na], b[~nb]
    diff = np.abs(a - b)
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float((diff / np.maximum(np.abs(b), 1e-12)).max()) if diff.size else 0.0
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norm == 0.0:
        cos = 1.0 if max_abs == 0.0 else 0.0
    else:
        cos = float(np.dot(a, b) / norm)
    return cos, max_abs, max_rel, ""


def _status(cos, max_abs, note, th: Thresholds) -> str:
    if note or not math.isfinite(cos) or cos <= th.cosine:
        return "fail"
    return "pass" if max_abs < th.max_abs else "warn"


def _loss_status(rel, th: Thresholds) -> str:
    if rel is None or not math.isfinite(rel):
        return "fail"
    return "pass" if rel <= th.loss_rtol else ("warn" if rel <= 1e-3 else "fail")


@dataclass
class CompareReport:
    """The comparison of one cell: rows, losses, errors and where they first differ."""

    rows: list[Row] = field(default_factory=list)
    losses: list[LossRow] = field(default_factory=list)
    thresholds: Thresholds = field(default_factory=Thresholds)
    msnb_error: dict | None = None
    torch_error: dict | None = None
    torch_missing: str | None = None
    not_sent: list[str] = field(default_factory=list)
    first_divergence: Row | None = None
    line_offset: int = 0

    # --- summary ----------------------------------------------------------------------
    @property
    def ok(self) -> bool:
        """Both sides ran and nothing failed."""
        return (self.torch_missing is None and self.msnb_error is None and self.torch_error is None
                and all(r.status != "fail" for r in self.rows) and all(r.status != "fail" for r in self.losses))

    def counts(self) -> dict[str, int]:
        out = {"pass": 0, "warn": 0, "fail": 0}
        for r in [*self.rows, *self.losses]:
            out[r.status] += 1
        return out

    def _line(self, line):
        return None if line is None else line + self.line_offset

    def headline(self) -> list[str]:
        """The lines above the table."""
        if self.torch_missing:
            return [self.torch_missing]
        out = []
        for side, err in (("msnb", self.msnb_error), ("PyTorch", self.torch_error)):
            if err:
                where = f" at cell line {self._line(err['line'])}" if err.get("line") else ""
                out.append(f"{side} raised {err['type']}: {err['message']}{where}")
        if self.torch_error and self.not_sent and self.torch_error.get("type") == "NameError":
            out.append("not sent to the PyTorch process (define them in this cell): " + ", ".join(self.not_sent))
        c = self.counts()
        out.append(f"{c['pass']} pass, {c['warn']} warn, {c['fail']} fail "
                   f"(cosine > {self.thresholds.cosine}, MaxAbsErr < {self.thresholds.max_abs}, "
                   f"loss rtol {self.thresholds.loss_rtol})")
        d = self.first_divergence
        if d is not None:
            line = f" (cell line {self._line(d.line)})" if d.line is not None else ""
            out.append(f"first divergence: {d.module}{line}, step {d.step}, call {d.call}, {d.tensor}: "
                       f"cosine {_fmt(d.cosine)}, MaxAbsErr {_fmt(d.max_abs)}{' ' + d.note if d.note else ''}")
        elif not self.msnb_error and not self.torch_error:
            out.append("no divergence: every module output and gradient is within the thresholds")
        return out

    def shown_rows(self) -> list[Row]:
        """Rows for the screen: every row of the first step, then only the ones not passing."""
        first = min((r.step for r in self.rows), default=0)
        return [r for r in self.rows if r.step == first or r.status != "pass"]

    # --- renderings ---------------------------------------------------------------------
    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "thresholds": asdict(self.thresholds), "summary": self.headline(),
                "msnb_error": self.msnb_error, "torch_error": self.torch_error,
                "torch_missing": self.torch_missing, "not_sent": self.not_sent,
                "first_divergence": None if self.first_divergence is None else asdict(self.first_divergence),
                "modules": [dict(asdict(r), line=self._line(r.line)) for r in self.rows],
                "losses": [asdict(r) for r in self.losses]}

    def write_json(self, path) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.as_dict(), f, indent=1, default=float)

    def __str__(self) -> str:
        lines = list(self.headline())
        rows = self.shown_rows()
        if rows:
            head = ("step", "module", "call", "line", "tensor", "cosine", "MaxAbsErr", "MaxRelErr", "status")
            body = [(str(r.step), r.module, str(r.call), "" if r.line is None else str(self._line(r.line)),
                     r.tensor, _fmt(r.cosine), _fmt(r.max_abs), _fmt(r.max_rel), r.status + (f" ({r.note})"
                                                                                             if r.note else ""))
                    for r in rows]
            lines += [""] + _text_table(head, body)
            hidden = len(self.rows) - len(rows)
            if hidden:
                lines.append(f"({hidden} passing rows of later steps not shown; --compare=json writes them all)")
        if self.losses:
            head = ("step", "loss msnb", "loss PyTorch", "abs err", "rel err", "status")
            body = [(str(r.step), _fmt(r.msnb, 8), _fmt(r.torch, 8), _fmt(r.abs_err), _fmt(r.rel_err), r.status)
                    for r in self.losses]
            lines += [""] + _text_table(head, body)
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colors = {"pass": "#d4edda", "warn": "#fff3cd", "fail": "#f8d7da"}
        parts = ["<div class='msnb-compare'>"]
        parts += [f"<p>{html.escape(line)}</p>" for line in self.headline()]

        def table(head, body, statuses):
            out = ["<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr></thead><tbody>"]
            for cells, st in zip(body, statuses):
                out.append(f"<tr style='background:{colors[st]}'>"
                           + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
            return out + ["</tbody></table>"]

        rows = self.shown_rows()
        if rows:
            parts += table(("step", "module", "call", "line", "tensor", "cosine", "MaxAbsErr", "MaxRelErr", "status"),
                           [(str(r.step), r.module, str(r.call), "" if r.line is None else str(self._line(r.line)),
                             r.tensor, _fmt(r.cosine), _fmt(r.max_abs), _fmt(r.max_rel),
                             r.status + (f" ({r.note})" if r.note else "")) for r in rows],
                           [r.status for r in rows])
        if self.losses:
            parts += table(("step", "loss msnb", "loss PyTorch", "abs err", "rel err", "status"),
                           [(str(r.step), _fmt(r.msnb, 8), _fmt(r.torch, 8), _fmt(r.abs_err), _fmt(r.rel_err),
                             r.status) for r in self.losses], [r.status for r in self.losses])
        return "".join(parts + ["</div>"])


def _fmt(v, digits=4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan"
    if v == 0:
        return "0"
    return f"{v:.{digits}g}" if abs(v) >= 1e-3 else f"{v:.2e}"


def _text_table(head, body) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*head), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in body]


def _rows_for(rec: dict, other: dict | None, th: Thresholds) -> list[Row]:
    rows = []
    base = dict(step=rec["step"], module=rec["path"], call=rec["call"], line=rec["line"])
    for kind, mine, theirs in (("output", rec["outputs"], None if other is None else other["outputs"]),
                               ("grad", rec["grads"], None if other is None else other["grads"])):
        items = enumerate(mine) if kind == "output" else sorted(mine.items())
        for i, a in items:
            label = f"{kind}[{i}]"
            b = None
            if theirs is not None:
                b = theirs[i] if kind == "output" and i < len(theirs) else (theirs.get(i) if kind == "grad" else None)
            if b is None:
                rows.append(Row(**base, tensor=label, cosine=None, max_abs=None, max_rel=None, status="fail",
                                note="no such call on the PyTorch side" if other is None else "missing on PyTorch"))
                continue
            cos, mabs, mrel, note = metrics(a, b)
            rows.append(Row(**base, tensor=label, cosine=cos, max_abs=mabs, max_rel=mrel,
                            status=_status(cos, mabs, note, th), note=note))
    return rows


def build_report(mine: dict, theirs: dict | None, th: Thresholds | None = None, **extra) -> CompareReport:
    """Match msnb's records (``mine``) with PyTorch's (``theirs``) by (step, module, call)."""
    th = th or Thresholds()
    rep = CompareReport(thresholds=th, **extra)
    if theirs is None:
        return rep
    index = {(r["step"], r["path"], r["call"]): r for r in theirs["records"]}
    for rec in mine["records"]:
        rep.rows.extend(_rows_for(rec, index.get((rec["step"], rec["path"], rec["call"])), th))
    for step in sorted(set(mine["losses"]) | set(theirs["losses"])):
        a, b = mine["losses"].get(step), theirs["losses"].get(step)
        if a is None or b is None:
            rep.losses.append(LossRow(step, a, b, None, None, "fail"))
            continue
        err = abs(a - b)
        rel = err / max(abs(b), 1e-12) if err else 0.0
        rep.losses.append(LossRow(step, a, b, err, rel, _loss_status(rel, th)))
    rep.first_divergence = next((r for r in rep.rows if r.tensor.startswith("output") and r.status != "pass"),
                                None)  # records are in completion order: the innermost, earliest module
    return rep
