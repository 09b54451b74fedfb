"""``torch.histogramdd`` with explicit bin-edge tensors against real PyTorch, including edges
that are not increasing (numpy refuses them; PyTorch bins by binary search over them as
given), weights, density, and an empty input with bin counts (edges [0, 1])."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(4)
X = rng.standard_normal((40, 2)).astype(np.float32)
W = rng.random(40).astype(np.float32)
NAMES = registered("torch.histogramdd")
EDGES = {
    "increasing": ([-2.0, 0.0, 1.0, 2.5], [-1.0, 1.0]),
    "decreasing": ([-1.0, 0.5, 2.0], [1.5, -1.5]),
    "unsorted": ([-2.0, 1.0, 0.0, 2.0], [-1.0, 0.5, 0.2, 1.5]),
}

CASES = []
for _id, (e0, e1) in EDGES.items():
    for density in (False, True):
        CASES.append(case(f"edges_{_id}[density={density}]", NAMES,
                          lambda t, e0=e0, e1=e1, density=density: t.histogramdd(
                              t.tensor(X), [t.tensor(e0), t.tensor(e1)], weight=t.tensor(W), density=density),
                          kind="behaviour", rtol=1e-5, atol=1e-6))
CASES.append(case("empty_input_counts", NAMES, lambda t: t.histogramdd(t.zeros(0, 3), [2, 1, 3]), kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_histogramdd_edges(c):
    run_case(c)
