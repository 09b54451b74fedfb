"""Differential tests of ``torch.linalg.ldl_factor`` / ``ldl_factor_ex`` /
``ldl_solve`` against real PyTorch: LAPACK's Bunch-Kaufman factors and
1-based pivots (2x2 blocks negative) of symmetric indefinite and positive
definite matrices, batched and empty, float32 / float64; ``info`` of a
singular matrix; solves with broadcast batches; PyTorch's exception types
for non-square, integer and mismatched input."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(12)
_R = rng.standard_normal((2, 5, 5))
SYM = _R + np.swapaxes(_R, -1, -2)  # indefinite: 2x2 pivots occur
SPD = _R @ np.swapaxes(_R, -1, -2) + 5 * np.eye(5)
RHS = rng.standard_normal((2, 5, 3))
F, FX, S = (registered(f"torch.linalg.{n}") for n in ("ldl_factor", "ldl_factor_ex", "ldl_solve"))
TOL = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-12)}
CASES = []

for _dt in (np.float32, np.float64):
    _n = np.dtype(_dt).name
    for _id, _a in (("indefinite", SYM), ("spd", SPD)):
        CASES.append(case(f"factor_ex[{_id},{_n}]", FX, lambda t, a: tuple(t.linalg.ldl_factor_ex(a)),
                          _a.astype(_dt), grad=False, **TOL[_dt]))
        CASES.append(case(f"factor[{_id},{_n},single]", F, lambda t, a: tuple(t.linalg.ldl_factor(a[0])),
                          _a.astype(_dt), grad=False, **TOL[_dt]))
        CASES.append(case(f"solve[{_id},{_n}]", S + FX,
                          lambda t, a, b: t.linalg.ldl_solve(*t.linalg.ldl_factor_ex(a)[:2], b),
                          _a.astype(_dt), RHS.astype(_dt), grad=False, **TOL[_dt]))
CASES += [
    case("solve_broadcast_rhs", S, lambda t, a, b: t.linalg.ldl_solve(*t.linalg.ldl_factor(a[0]), b),
         SYM, RHS, grad=False),
    case("solve_int64_pivots", S, lambda t, a, b: t.linalg.ldl_solve(t.linalg.ldl_factor(a).LD,
                                                                      t.linalg.ldl_factor(a).pivots.long(), b),
         SYM, RHS, grad=False),
    case("factor_ex_empty", FX, lambda t: tuple(t.linalg.ldl_factor_ex(t.zeros(0, 2, 2))), kind="behaviour"),
    case("factor_ex_0x0", FX, lambda t: tuple(t.linalg.ldl_factor_ex(t.zeros(0, 0))), kind="behaviour"),
    case("factor_ex_singular_info", FX, lambda t: tuple(t.linalg.ldl_factor_ex(t.zeros(3, 3))), kind="behaviour"),
    case("factor_ex_named_fields", FX, lambda t: (t.linalg.ldl_factor_ex(t.eye(2)).info,
                                                  t.linalg.ldl_factor_ex(t.eye(2)).pivots.dtype), kind="behaviour"),
    case("factor_singular_raises", F, lambda t: t.linalg.ldl_factor(t.zeros(3, 3)), kind="behaviour"),
    case("factor_ex_check_errors_raises", FX, lambda t: t.linalg.ldl_factor_ex(t.zeros(3, 3), check_errors=True),
         kind="behaviour"),
    case("factor_not_square", F, lambda t: t.linalg.ldl_factor(t.zeros(2, 3)), kind="behaviour"),
    case("factor_1d", F, lambda t: t.linalg.ldl_factor(t.zeros(3)), kind="behaviour"),
    case("factor_int", F, lambda t: t.linalg.ldl_factor(t.eye(3, dtype=t.int64)), kind="behaviour"),
    case("solve_wrong_rows", S, lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.eye(3)), t.ones(4, 1)),
         kind="behaviour"),
    case("solve_dtype_mismatch", S, lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.eye(3)),
                                                                 t.ones(3, 1, dtype=t.float64)), kind="behaviour"),
    case("solve_float_pivots", S, lambda t: t.linalg.ldl_solve(t.eye(3), t.ones(3), t.ones(3, 1)),
         kind="behaviour"),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_ldl(c):
    run_case(c)


def test_solve_empty():
    """0x0 systems and empty batches solve to empty results, as in PyTorch."""
    from ..harness import compare_behaviour
    compare_behaviour(lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.zeros(0, 0)), t.zeros(0, 2)))
    compare_behaviour(lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.zeros(0, 2, 2)), t.zeros(0, 2, 1)))
