"""Differential tests of complex tensors (what FFT results need): ``real``,
``imag``, ``abs``, ``angle``, ``conj``, ``view_as_real`` / ``view_as_complex``,
``complex``, ``polar``, complex arithmetic and printing, against real PyTorch,
with PyTorch's complex gradient convention."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, real, registered, run_case

rng = np.random.default_rng(9)
RE = rng.standard_normal((2, 3))
IM = rng.standard_normal((2, 3))
TOL = dict(rtol=1e-5, atol=1e-6)

CASES = []


def add(id, names, fn, *arrays, **opts):
    for dt in (np.float32, np.float64):
        CASES.append(case(f"{id}[{np.dtype(dt).name}]", names, fn, *(a.astype(dt) for a in arrays), **{**TOL, **opts}))


def _parts(t, z):
    return t.view_as_real(z.resolve_conj())


add("complex_real_imag", registered("torch.complex", "torch.real", "torch.imag", "torch.Tensor.real",
                                    "torch.Tensor.imag"),
    lambda t, a, b: (t.real(t.complex(a, b)) * 2, t.imag(t.complex(a, b)) * 3, t.complex(a, b).real,
                     t.complex(a, b).imag), RE, IM)
add("abs_angle", registered("torch.angle", "torch.Tensor.angle", "torch.abs"),
    lambda t, a, b: (t.complex(a, b).abs(), t.angle(t.complex(a, b)), t.complex(a, b).angle(), t.angle(a)), RE, IM)
add("conj", registered("torch.conj", "torch.conj_physical", "torch.Tensor.conj", "torch.Tensor.conj_physical",
                       "torch.resolve_conj", "torch.Tensor.resolve_conj", "torch.resolve_neg",
                       "torch.Tensor.resolve_neg"),
    lambda t, a, b: (_parts(t, t.conj(t.complex(a, b))), _parts(t, t.conj_physical(t.complex(a, b)) * 2),
                     _parts(t, t.complex(a, b).conj().resolve_conj().resolve_neg()), t.conj(a)), RE, IM)
add("view_as_real_complex", registered("torch.view_as_real", "torch.view_as_complex"),
    lambda t, a, b: (t.view_as_real(t.complex(a, b)) * 1.5, t.view_as_real(t.view_as_complex(t.stack([a, b], -1)))),
    RE, IM)
add("polar", registered("torch.polar"), lambda t, r, th: _parts(t, t.polar(r.abs(), th)), RE, IM)
add("arithmetic", registered("torch.complex"),
    lambda t, a, b: (_parts(t, t.complex(a, b) * t.complex(b, a)), _parts(t, t.complex(a, b) / t.complex(b, a + 3)),
                     _parts(t, t.complex(a, b) + a), _parts(t, a * t.complex(a, b)), _parts(t, t.complex(a, b) * 2j),
                     _parts(t, t.complex(a, b).sum(0)), _parts(t, t.complex(a, b).exp())), RE, IM)
CASES.append(case("is_conj", registered("torch.is_conj", "torch.Tensor.is_conj"),
                  lambda t: (t.is_conj(t.ones(2)), t.ones(2).is_conj()), kind="behaviour"))
CASES.append(case("promotion", (), lambda t: ((t.ones(2, dtype=t.float64) + 1j).dtype, (t.ones(2) + 1j).dtype,
                                                (t.ones(2, dtype=t.float64) + t.tensor(1j)).dtype), kind="behaviour"))
CASES.append(case("bad_input[view_as_complex]", (), lambda t: t.view_as_complex(t.ones(3, 3)), kind="behaviour"))
CASES.append(case("bad_input[imag_of_real]", (), lambda t: t.imag(t.ones(3)), kind="behaviour"))


def test_printing_matches_pytorch():
    """Complex tensors print as PyTorch prints them (complex64 carries no dtype suffix)."""
    import msnb.adapter.torch as mt
    for make in (lambda t: t.polar(t.tensor([1.0, 2.0]), t.tensor([0.5, 1.0])),
                 lambda t: t.fft.rfft(t.tensor([1.0, 2.0, 3.0, 4.0])),
                 lambda t: t.fft.fft(t.arange(5.0) / 3),
                 lambda t: t.tensor([1 + 2j, -3 - 0.5j], dtype=t.complex128),
                 lambda t: t.fft.fft(t.tensor([1e-5, 1e5]))):
        assert repr(make(mt)) == repr(make(real))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_complex(c):
    run_case(c)
