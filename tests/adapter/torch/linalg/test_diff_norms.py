"""Differential tests of vector and matrix norms (``torch.linalg.vector_norm``
/ ``matrix_norm`` / ``norm`` / ``cond`` and ``torch.norm``) against real
PyTorch, including PyTorch's gradients at zero and at inf-norm ties."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(11)
X = rng.standard_normal((2, 5, 3))
SQ = rng.standard_normal((2, 4, 4)) + 3 * np.eye(4)
TIES = np.array([[1.0, -3.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0]])  # inf-norm ties; an all-zero row
TOL = dict(rtol=1e-4, atol=1e-5)
INF = float("inf")

CASES = []


def add(id, names, fn, *arrays, **opts):
    for dt in (np.float32, np.float64):
        CASES.append(case(f"{id}[{np.dtype(dt).name}]", names, fn, *(a.astype(dt) for a in arrays), **{**TOL, **opts}))


for _o in (2, 1, 3, 0.5, INF, -INF, 0):
    add(f"vector_norm[{_o}]", registered("torch.linalg.vector_norm"),
        lambda t, x, o=_o: (t.linalg.vector_norm(x, o), t.linalg.vector_norm(x, o, dim=-1),
                            t.linalg.vector_norm(x, o, dim=(0, 2), keepdim=True)), X)
    add(f"vector_norm_ties_and_zero[{_o}]", registered("torch.linalg.vector_norm"),
        lambda t, x, o=_o: t.linalg.vector_norm(x, o, dim=1), TIES)
add("vector_norm_dtype", registered("torch.linalg.vector_norm"),
    lambda t, x: t.linalg.vector_norm(x, dtype=t.float64), X[0])
for _o in ("fro", "nuc", 1, -1, 2, -2, INF, -INF):
    add(f"matrix_norm[{_o}]", registered("torch.linalg.matrix_norm"),
        lambda t, x, o=_o: (t.linalg.matrix_norm(x, o), t.linalg.matrix_norm(x, o, dim=(0, 2), keepdim=True)), X)
add("linalg_norm", registered("torch.linalg.norm"),
    lambda t, x: (t.linalg.norm(x), t.linalg.norm(x[0], 2), t.linalg.norm(x[0, 0], 1), t.linalg.norm(x, dim=1),
                  t.linalg.norm(x, "fro", dim=(1, 2)), t.linalg.norm(x[0], "nuc"), t.linalg.norm(x, 3, dim=(2,))), X)
add("torch_norm", registered("torch.norm", "torch.Tensor.norm"),
    lambda t, x: (t.norm(x), t.norm(x, dim=1), t.norm(x, p=1), t.norm(x, p=INF, dim=2, keepdim=True),
                  t.norm(x[0], p="nuc"), x.norm(3), x.norm(dim=(1, 2))), X)
add("cond", registered("torch.linalg.cond"),
    lambda t, a: (t.linalg.cond(a), t.linalg.cond(a, -2), t.linalg.cond(a, 1), t.linalg.cond(a, INF)), SQ, grad=False)
add("cond_grad", registered("torch.linalg.cond"), lambda t, a: t.linalg.cond(a), SQ)

CASES.append(case("bad_input[vector_norm_str]", (), lambda t: t.linalg.vector_norm(t.ones(3), "fro"), kind="behaviour"))
CASES.append(case("bad_input[vector_norm_int]", (), lambda t: t.linalg.vector_norm(t.ones(3, dtype=t.int64)),
                  kind="behaviour"))
CASES.append(case("bad_input[inf_norm_empty]", (), lambda t: t.linalg.vector_norm(t.ones(0), INF), kind="behaviour"))
CASES.append(case("bad_input[matrix_norm_1d]", (), lambda t: t.linalg.matrix_norm(t.ones(3)), kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_norms(c):
    run_case(c)
