"""Migration tests run the analyzer in strict mode: a rule that raises
fails the test instead of becoming an MSN001 finding."""

import pytest

from msnb.analyzer import engine


@pytest.fixture(autouse=True)
def _strict(monkeypatch):
    monkeypatch.setattr(engine, "STRICT", True)
