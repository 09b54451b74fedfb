"""Graph mode on for one test, with a clean fallback log and counters.

The tests here check what the compiled forms compute, so the whole-step graph
is forced (``MSNB_GRAPH_CHOICE=graph``): left on ``auto`` it would time its
first replays against PyNative and might keep PyNative on a loaded host.
test_graph_choice.py sets the choice itself."""

import pytest

from msnb.adapter import graph


@pytest.fixture
def graph_mode(monkeypatch):
    monkeypatch.setenv("MSNB_GRAPH_CHOICE", "graph")
    graph.reset()
    prev = graph.set_enabled(True)
    yield graph
    graph.set_enabled(prev)
    graph.reset()
