"""Graph mode on for one test, with a clean fallback log and counters."""

import pytest

from msnb.adapter import graph


@pytest.fixture
def graph_mode():
    graph.reset()
    prev = graph.set_enabled(True)
    yield graph
    graph.set_enabled(prev)
    graph.reset()
