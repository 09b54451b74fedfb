"""Differential tests of ``torch.linalg.eig`` against real PyTorch: complex
eigenvalues and eigenvectors of real matrices (random, symmetric, a rotation
with purely imaginary eigenvalues, a defective Jordan block), batched, float32
and float64, and gradients through phase-invariant functions of the result
(eigenvectors are defined up to a unit complex factor per column, which a
LAPACK build may choose differently: ``abs`` and reconstructions do not
depend on it)."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, real, registered, run_case

rng = np.random.default_rng(11)
RAND = rng.standard_normal((2, 4, 4))
SYM = RAND + np.swapaxes(RAND, -1, -2)
ROT = np.array([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
JORDAN = np.array([[2.0, 1.0], [0.0, 2.0]])
TOL = dict(rtol=1e-4, atol=1e-4)
NAMES = registered("torch.linalg.eig")

CASES = []


def _invariants(t, a):
    w, v = t.linalg.eig(a)
    residual = a.to(v.dtype) @ v - v * w.unsqueeze(-2)  # A V == V diag(w)
    return t.view_as_real(w), v.abs(), residual.abs().amax() < 1e-4, (v.conj() * v).real.sum(-2), w.dtype == v.dtype


for dt in (np.float32, np.float64):
    for name, arr in (("random", RAND), ("symmetric", SYM), ("rotation", ROT)):
        CASES.append(case(f"eig_{name}[{np.dtype(dt).name}]", NAMES, _invariants, arr.astype(dt), **TOL))
    # defective: eigenvalues agree; the two eigenvectors are (nearly) parallel, no gradient exists
    CASES.append(case(f"eig_defective[{np.dtype(dt).name}]", NAMES,
                      lambda t, a: (t.view_as_real(t.linalg.eig(a).eigenvalues),
                                    t.linalg.eig(a).eigenvectors[..., 0].abs()),
                      JORDAN.astype(dt), grad=False, **TOL))
CASES.append(case("eig_eigenvalues_only_grad[float64]", NAMES,
                  lambda t, a: (t.linalg.eig(a).eigenvalues.real, t.linalg.eig(a).eigenvalues.imag ** 2), RAND, **TOL))
_BAD = {
    "eig_not_square": lambda t: t.linalg.eig(t.ones(2, 3)),
    "eig_1d": lambda t: t.linalg.eig(t.ones(3)),
    "eig_int": lambda t: t.linalg.eig(t.ones(2, 2, dtype=t.int64)),
}
for _id, _fn in _BAD.items():
    CASES.append(case(f"bad_input[{_id}]", NAMES, _fn, kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_eig(c):
    run_case(c)


def test_eig_named_fields_and_grad_fn():
    """``torch.linalg.eig`` returns PyTorch's named tuple; the graph node has PyTorch's name."""
    import msnb.adapter.torch as mt
    a = mt.tensor(RAND[0], requires_grad=True)
    r, m = real.linalg.eig(real.tensor(RAND[0], requires_grad=True)), mt.linalg.eig(a)
    assert type(m).__name__ == type(r).__name__ == "linalg_eig"
    assert m.eigenvalues.grad_fn.name() == r.eigenvalues.grad_fn.name()


def test_complex_input_refused_by_name():
    """Complex matrices are not computed: msnb's error names the function."""
    import msnb.adapter.torch as mt
    with pytest.raises(NotImplementedError, match="torch.linalg.eig"):
        mt.linalg.eig(mt.ones(2, 2, dtype=mt.complex64))
