"""Tornado handlers of ``/msnb/analyze`` and ``/msnb/fix``.

Analysis runs on one worker thread: the server's event loop stays free while
the analyzer works, and two editors typing at once cannot take both cores.
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from msnb.server.requests import BadRequest, CellRequest, MigrateRequest, parse_cell_request, parse_migrate_request

__all__ = ["AnalyzeHandler", "FixHandler", "MigrateHandler", "routes", "analyze_cell", "fix_cell", "migrate"]

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


def migrate(req: MigrateRequest, root: Path) -> dict[str, Any]:
    """Run :func:`msnb.migration.migrate_notebook` on ``root / req.path``;
    paths in the reply and in messages are relative to ``root``."""
    from msnb.migration import InputError, default_output, migrate_notebook

    src = (root / req.path).resolve()
    if not src.is_relative_to(root):
        raise BadRequest(f"{req.path!r} is outside the server's root folder", 403)
    dst = default_output(src)
    shown = dst.relative_to(root).as_posix()
    if dst.exists() and not req.overwrite:
        raise BadRequest(f"{shown} exists; migrate again with overwrite to replace it", 409)
    try:
        result = migrate_notebook(src, dst, style=req.style, force=req.overwrite)
    except InputError as exc:
        raise BadRequest(str(exc).replace(f"{root}/", ""), 400) from None
    return {
        "source": src.relative_to(root).as_posix(),
        "output": shown,
        "changed_cells": len(result.changes),
        "fixed": dict(result.fixed),
        "needs_human": list(result.needs_human),
    }


class _JSONHandler(APIHandler):
    """POST JSON, answer JSON; errors are ``{"error": message}``.

    A subclass names ``parse(body) -> request`` and ``work(request, handler)
    -> reply``; ``work`` runs on the analyzer's worker thread."""

    parse: Callable[[bytes], Any]
    work: Callable[[Any, "_JSONHandler"], dict[str, Any]]

    def _error(self, status: int, message: str) -> None:
        self.set_status(status)
        self.finish({"error": message})

    @web.authenticated
    async def post(self) -> None:
        cls = type(self)
        try:
            req = cls.parse(self.request.body)
            result = await asyncio.get_running_loop().run_in_executor(
                _EXECUTOR, functools.partial(cls.work, req, self))
        except BadRequest as exc:
            return self._error(exc.status, str(exc))
        except ValueError as exc:  # the analyzer refusing an argument (e.g. an unknown rule code)
            return self._error(400, str(exc))
        self.finish(result)


class AnalyzeHandler(_JSONHandler):
    """``POST /msnb/analyze``: the findings of one cell."""

    parse = staticmethod(parse_cell_request)
    work = staticmethod(lambda req, _handler: analyze_cell(req))


class FixHandler(_JSONHandler):
    """``POST /msnb/fix``: the cell with one finding, or every safe finding, fixed."""

    parse = staticmethod(functools.partial(parse_cell_request, with_finding=True))
    work = staticmethod(lambda req, _handler: fix_cell(req))


class MigrateHandler(_JSONHandler):
    """``POST /msnb/migrate``: write ``x_msnb.ipynb`` beside ``x.ipynb`` (the CLI's ``msnb migrate``)."""

    parse = staticmethod(parse_migrate_request)
    work = staticmethod(lambda req, handler: migrate(req, Path(handler.contents_manager.root_dir).resolve()))


def routes(base_url: str) -> list[tuple[str, type]]:
    """URL patterns of msnb's handlers under ``base_url``."""
    return [
        (url_path_join(base_url, "msnb", "analyze"), AnalyzeHandler),
        (url_path_join(base_url, "msnb", "fix"), FixHandler),
        (url_path_join(base_url, "msnb", "migrate"), MigrateHandler),
    ]
