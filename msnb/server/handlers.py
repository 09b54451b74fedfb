"""Tornado handlers of ``/msnb/analyze`` and ``/msnb/fix``.

Analysis runs on one worker thread: the server's event loop stays free while
the analyzer works, and two editors typing at once cannot take both cores.
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from msnb.server.requests import BadRequest, CellRequest, parse_cell_request

__all__ = ["AnalyzeHandler", "FixHandler", "routes", "analyze_cell", "fix_cell"]

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="msnb-analyzer")


def _finding_json(f: Any) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "category": str(f.category),
        "severity": str(f.severity),
        "line": f.line,
        "col": f.col,
        "end_line": f.end_line,
        "end_col": f.end_col,
        "message": f.message,
        "why": f.why,
        "suggestion": f.suggestion,
        "mode": f.mode,
        "fixable": f.fixable,
    }


def analyze_cell(req: CellRequest) -> dict[str, Any]:
    """``{"findings": [...]}`` for the request's cell (fixes are not computed here)."""
    from msnb.analyzer import analyze

    findings = analyze(req.source, mode=req.mode, context=req.context)
    return {"findings": [_finding_json(f) for f in findings]}


def fix_cell(req: CellRequest) -> dict[str, Any]:
    """``{"source": fixed, "changed": bool}``: one finding fixed, or every safe fix."""
    from msnb.analyzer import analyze, fix

    if req.finding is None:
        fixed = fix(req.source, mode=req.mode, context=req.context)
    else:
        rule, line, col = req.finding
        match = [f for f in analyze(req.source, mode=req.mode, context=req.context)
                 if (f.rule, f.line, f.col) == (rule, line, col)]
        if not match:
            raise BadRequest(f"no {rule} finding at {line}:{col} in this cell (it changed?)", 409)
        if match[0].fix is None:
            raise BadRequest(f"{rule} at {line}:{col} has no automatic fix", 409)
        fixed = match[0].fix
    return {"source": fixed, "changed": fixed != req.source}


class _CellHandler(APIHandler):
    """POST a cell request, answer JSON; errors are ``{"error": message}``."""

    work: Callable[[CellRequest], dict[str, Any]]
    with_finding = False

    def _error(self, status: int, message: str) -> None:
        self.set_status(status)
        self.finish({"error": message})

    @web.authenticated
    async def post(self) -> None:
        try:
            req = parse_cell_request(self.request.body, with_finding=self.with_finding)
            work = type(self).work
            result = await asyncio.get_running_loop().run_in_executor(_EXECUTOR, functools.partial(work, req))
        except BadRequest as exc:
            return self._error(exc.status, str(exc))
        except ValueError as exc:  # the analyzer refusing an argument (e.g. an unknown rule)
            return self._error(400, str(exc))
        self.finish(result)


class AnalyzeHandler(_CellHandler):
    work = staticmethod(analyze_cell)


class FixHandler(_CellHandler):
    work = staticmethod(fix_cell)
    with_finding = True


def routes(base_url: str) -> list[tuple[str, type]]:
    """URL patterns of msnb's handlers under ``base_url``."""
    return [
        (url_path_join(base_url, "msnb", "analyze"), AnalyzeHandler),
        (url_path_join(base_url, "msnb", "fix"), FixHandler),
    ]
