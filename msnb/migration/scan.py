"""``scan_paths``: a migration report over notebooks, scripts and folders.

For each file: the torch / torchvision APIs it uses with counts and the
adapter's support status of each (``msnb.adapter.support``), a support
percentage, and every analyzer finding located as ``nb.ipynb:cell 3:2:5``
or ``train.py:12:5``.  Files are scanned in worker processes (``jobs``,
default: every core), forked from the ``msnb`` command, or started with
``forkserver`` when the parent runs threads (MindSpore's), which must not be
forked.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import sys
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from msnb.analyzer.config import validate_codes
from msnb.analyzer.notebook import cell_mode

from .formats import SEVERITIES
from .rules import Selection, analyze_cell, selection_for
from .sources import InputError, load_source, iter_paths
from .usage import api_status, survey_cells

__all__ = ["ApiUse", "LocatedFinding", "FileReport", "ScanReport", "scan_paths", "scan_file", "SEVERITIES",
           "POOL_THRESHOLD"]

#: Fewer files than this are scanned in-process (starting workers costs ~1 s).
POOL_THRESHOLD = 8


@dataclass
class ApiUse:
    name: str
    count: int
    status: str  # supported | partial | unsupported
    note: str = ""


@dataclass
class LocatedFinding:
    location: str
    cell: int | None  # 1-based cell number, None for scripts
    line: int
    col: int
    end_line: int
    end_col: int
    rule: str
    severity: str
    category: str
    message: str
    suggestion: str
    fixable: bool
    #: position in the file itself (a notebook's JSON text); None if unknown
    file_line: int | None = None
    file_col: int | None = None
    file_end_line: int | None = None
    file_end_col: int | None = None


@dataclass
class FileReport:
    path: str
    kind: str = ""  # notebook | script ("" when it could not be read)
    code_cells: int = 0
    torch_cells: int = 0
    apis: list[ApiUse] = field(default_factory=list)
    findings: list[LocatedFinding] = field(default_factory=list)
    error: str | None = None

    @property
    def support_percent(self) -> float | None:
        """Share of the distinct APIs used that the adapter implements
        (supported or partial), in percent; None when no API is used."""
        if not self.apis:
            return None
        ok = sum(1 for a in self.apis if a.status != "unsupported")
        return round(100.0 * ok / len(self.apis), 1)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["support_percent"] = self.support_percent
        return d


@dataclass
class ScanReport:
    files: list[FileReport]

    @property
    def errors(self) -> list[FileReport]:
        return [f for f in self.files if f.error is not None]

    def findings(self) -> list[LocatedFinding]:
        return [x for f in self.files for x in f.findings]

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in SEVERITIES}
        for x in self.findings():
            out[x.severity] += 1
        return out

    def support_percent(self) -> float | None:
        """Support share over the distinct APIs of every file together."""
        status: dict[str, str] = {}
        for f in self.files:
            for a in f.apis:
                status[a.name] = a.status
        if not status:
            return None
        return round(100.0 * sum(1 for s in status.values() if s != "unsupported") / len(status), 1)

    def exit_code(self, fail_on: str = "info") -> int:
        """2 when a file could not be read, 1 when a finding is at or above
        ``fail_on`` (``never`` never fails), else 0."""
        if self.errors:
            return 2
        if fail_on == "never":
            return 0
        if fail_on not in SEVERITIES:
            raise ValueError(f"fail_on must be one of {SEVERITIES + ('never',)}, got {fail_on!r}")
        worst = SEVERITIES[: SEVERITIES.index(fail_on) + 1]
        return 1 if any(x.severity in worst for x in self.findings()) else 0

    def to_dict(self) -> dict:
        from msnb import __version__

        counts = self.counts()
        return {
            "msnb_version": __version__,
            "summary": {
                "files": len(self.files),
                "errors": len(self.errors),
                "findings": counts,
                "support_percent": self.support_percent(),
            },
            "files": [f.to_dict() for f in self.files],
        }


def _registry() -> dict:
    from msnb.adapter import support

    return support.load_registry()


def _located(source, cell, finding) -> LocatedFinding:
    start = source.file_position(cell, finding.line, finding.col)
    end = source.file_position(cell, finding.end_line, finding.end_col) if start else None
    start, end = (start, end) if start and end else ((None, None), (None, None))
    return LocatedFinding(
        location=source.location(cell, finding.line, finding.col),
        cell=None if cell.index is None else cell.index + 1,
        line=finding.line, col=finding.col, end_line=finding.end_line, end_col=finding.end_col,
        rule=finding.rule, severity=str(finding.severity), category=str(finding.category),
        message=finding.message, suggestion=finding.suggestion, fixable=finding.fixable,
        file_line=start[0], file_col=start[1], file_end_line=end[0], file_end_col=end[1])


def scan_file(path: str | Path, *, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
              mode: str | None = None, selection: Selection | None = None) -> FileReport:
    """Report for one file; an unreadable file gives a report with ``error``
    set (and a bad rule selection raises ``ConfigError``)."""
    report = FileReport(str(path))
    try:
        source = load_source(path)
    except InputError as exc:
        report.error = exc.reason
        return report
    if selection is None:
        selection = selection_for(path, select, ignore)
    registry = _registry()
    report.kind = source.kind
    code_cells = [c for c in source.cells if c.cell_type == "code"]
    report.code_cells = len(code_cells)
    surveys = survey_cells(source.cells, registry)
    counts: dict[str, int] = {}
    context: list[str] = []
    for cell, survey in zip(code_cells, surveys):
        if survey.uses_torch or source.kind == "script":
            report.torch_cells += survey.uses_torch
            for name, n in survey.apis.items():
                counts[name] = counts.get(name, 0) + n
            cell_mode_ = mode or cell_mode(cell.source)
            for finding in analyze_cell(cell.source, mode=cell_mode_, context=context, selection=selection):
                report.findings.append(_located(source, cell, finding))
        context.append(cell.source)
    for name in sorted(counts):
        status, note = api_status(name, registry)
        report.apis.append(ApiUse(name, counts[name], status, note))
    return report


def _scan_one(args) -> FileReport:
    path, select, ignore, mode = args
    return scan_file(path, select=select, ignore=ignore, mode=mode)


def _progress(total: int, progress: bool | None):
    from tqdm import tqdm

    enabled = sys.stderr.isatty() if progress is None else progress
    return tqdm(total=total, unit="file", desc="msnb scan", disable=not enabled, file=sys.stderr, leave=False)


def scan_paths(paths: Sequence[str | Path], *, select: Iterable[str] | None = None,
               ignore: Iterable[str] | None = None, mode: str | None = None, jobs: int | None = None,
               progress: bool | None = None) -> ScanReport:
    """Scan notebooks, scripts and folders (searched recursively).

    ``select`` / ``ignore`` are merged with each file's ``[tool.msnb]``;
    ``mode`` (``pynative`` / ``graph``) overrides each cell's own;
    ``jobs`` worker processes (default: the number of cores);
    ``progress`` shows a tqdm bar (default: when stderr is a terminal).
    Report files keep the order of ``paths``."""
    files = iter_paths(paths)
    select = list(select) if select is not None else None
    ignore = list(ignore) if ignore is not None else None
    # a bad --select/--ignore is one error before any work, not one per file
    for codes, where in ((select, "--select"), (ignore, "--ignore")):
        if codes is not None:
            validate_codes(codes, where=where)
    jobs = jobs or os.cpu_count() or 1
    work = [(str(p), select, ignore, mode) for p in files]
    results: list[FileReport | None] = [None] * len(work)
    with _progress(len(work), progress) as bar:
        if jobs <= 1 or len(work) < POOL_THRESHOLD:
            for i, item in enumerate(work):
                results[i] = _scan_one(item)
                bar.update()
        else:
            with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(work)),
                                                        mp_context=_pool_context()) as pool:
                futures = {pool.submit(_scan_one, item): i for i, item in enumerate(work)}
                for future in concurrent.futures.as_completed(futures):
                    results[futures[future]] = future.result()
                    bar.update()
    return ScanReport([r for r in results if r is not None])


def _pool_context():
    """``fork`` from a single-threaded parent (the ``msnb`` command: workers
    start at once with everything imported); ``forkserver`` when threads run
    (MindSpore's, in a kernel or a test process), since forking a
    multi-threaded process can inherit a held lock."""
    if threading.active_count() == 1 and "mindspore" not in sys.modules and sys.platform != "win32":
        _warm_up()
        return multiprocessing.get_context("fork")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["msnb.migration._worker"])
    return ctx


def _warm_up() -> None:
    """Load the registry and API list once (in the forkserver, before the
    workers fork), not once per file."""
    from .usage import torch_api_names

    _registry()
    torch_api_names()
