"""Bad inputs, one file each, shared by the command tests."""

import json
from pathlib import Path

import pytest

from msnb.analyzer import engine


@pytest.fixture(autouse=True)
def _strict(monkeypatch):
    monkeypatch.setattr(engine, "STRICT", True)


def _write_bad(kind: str, folder: Path, make_notebook) -> tuple[Path, str]:
    """(path, words the message must contain) for one kind of bad input."""
    if kind == "not-json":
        path = folder / "x.ipynb"
        path.write_text("this is not JSON")
        return path, "not a notebook: invalid JSON"
    if kind == "invalid":
        path = folder / "x.ipynb"
        path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"x": 1}]}))
        return path, "not a valid nbformat 4 notebook"
    if kind == "nbformat3":
        path = folder / "x.ipynb"
        path.write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}))
        return path, "nbformat 3 notebook"
    if kind == "r-kernel":
        return make_notebook("x.ipynb", ["print(1)"], language="R"), "not Python"
    if kind == "missing":
        return folder / "x.ipynb", "no such file or folder"
    if kind == "binary":
        path = folder / "x.ipynb"
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
        return path, "binary file"
    raise ValueError(kind)


BAD_KINDS = ["not-json", "invalid", "nbformat3", "r-kernel", "missing", "binary"]


@pytest.fixture(params=BAD_KINDS)
def bad_input(request, tmp_path, make_notebook):
    return _write_bad(request.param, tmp_path, make_notebook)
