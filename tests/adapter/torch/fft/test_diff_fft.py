"""Differential tests of ``torch.fft`` against real PyTorch: every transform
with ``n``/``s``, ``dim`` and each ``norm``, float32 and float64, values,
dtypes, shapes and first-order gradients (complex outputs are compared
through ``view_as_real``, so the real/imaginary parts both carry gradient)."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(5)
X = rng.standard_normal((3, 8))
X3 = rng.standard_normal((2, 4, 6))
Z = rng.standard_normal((3, 8)) + 1j * rng.standard_normal((3, 8))
TOL = dict(rtol=1e-4, atol=1e-5)

CASES = []


def fft_names(*n):
    return registered(*(f"torch.fft.{x}" for x in n))


def add(id, names, fn, *arrays, **opts):
    for dt in (np.float32, np.float64):
        cdt = np.complex64 if dt is np.float32 else np.complex128
        cast = [a.astype(cdt if np.iscomplexobj(a) else dt) for a in arrays]
        CASES.append(case(f"{id}[{np.dtype(dt).name}]", names, fn, *cast, **{**TOL, **opts}))


def _vr(t, *ys):
    return tuple(t.view_as_real(y.resolve_conj()) if y.is_complex() else y for y in ys)


for _norm in (None, "ortho", "forward"):
    add(f"fft_ifft[{_norm}]", fft_names("fft", "ifft"),
        lambda t, x, n=_norm: _vr(t, t.fft.fft(x, norm=n), t.fft.fft(x, n=11, norm=n), t.fft.fft(x, n=5, dim=0, norm=n),
                                  t.fft.ifft(x, norm=n), t.fft.ifft(x, n=6, norm=n)), X)
    add(f"rfft_irfft[{_norm}]", fft_names("rfft", "irfft"),
        lambda t, x, n=_norm: _vr(t, t.fft.rfft(x, norm=n), t.fft.rfft(x, n=6, norm=n), t.fft.rfft(x, n=11, norm=n),
                                  t.fft.irfft(t.fft.rfft(x), norm=n), t.fft.irfft(t.fft.rfft(x), n=9, norm=n)), X)
    add(f"hfft_ihfft[{_norm}]", fft_names("hfft", "ihfft"),
        lambda t, x, n=_norm: _vr(t, t.fft.hfft(t.fft.rfft(x), norm=n), t.fft.hfft(t.fft.rfft(x), n=7, norm=n),
                                  t.fft.ihfft(x, norm=n), t.fft.ihfft(x, n=5, norm=n)), X)
    add(f"fft2_fftn[{_norm}]", fft_names("fft2", "ifft2", "fftn", "ifftn"),
        lambda t, x, n=_norm: _vr(t, t.fft.fft2(x, norm=n), t.fft.ifft2(x, s=(3, 5), norm=n), t.fft.fftn(x, norm=n),
                                  t.fft.fftn(x, s=(5,), dim=(1,), norm=n), t.fft.ifftn(x, dim=(0, 2), norm=n)), X3)
    add(f"rfft2_rfftn[{_norm}]", fft_names("rfft2", "irfft2", "rfftn", "irfftn"),
        lambda t, x, n=_norm: _vr(t, t.fft.rfft2(x, norm=n), t.fft.rfftn(x, s=(3, 7), norm=n),
                                  t.fft.irfft2(t.fft.rfft2(x), norm=n), t.fft.irfftn(t.fft.rfftn(x), s=(4, 9), norm=n),
                                  t.fft.irfftn(t.fft.rfftn(x), norm=n)), X3)
    add(f"hfft2_hfftn[{_norm}]", fft_names("hfft2", "ihfft2", "hfftn", "ihfftn"),
        lambda t, x, n=_norm: _vr(t, t.fft.ihfft2(x, norm=n), t.fft.ihfftn(x, norm=n),
                                  t.fft.hfft2(t.fft.ihfft2(x), norm=n), t.fft.hfftn(t.fft.ihfftn(x), s=(4, 9), norm=n)),
        X3)
add("complex_input", fft_names("fft", "ifft", "irfft", "fftn"),
    lambda t, z: _vr(t, t.fft.fft(z), t.fft.ifft(z, n=5), t.fft.irfft(z), t.fft.fftn(z)), Z, grad=False)
add("shift", fft_names("fftshift", "ifftshift"),
    lambda t, x: (t.fft.fftshift(x), t.fft.ifftshift(x), t.fft.fftshift(x, dim=1), t.fft.ifftshift(x, dim=(0, 2))), X3)
CASES.append(case("freq", fft_names("fftfreq", "rfftfreq"),
                  lambda t: (t.fft.fftfreq(5), t.fft.fftfreq(8, 0.1), t.fft.rfftfreq(7), t.fft.rfftfreq(6, d=2.0),
                             t.fft.fftfreq(4, dtype=t.float64)), kind="behaviour"))
CASES.append(case("int_input", fft_names("fft", "rfft"),
                  lambda t: (t.fft.fft(t.arange(6)), t.fft.rfft(t.arange(6))), kind="behaviour"))
CASES.append(case("torch.fft_is_a_module", (), lambda t: (hasattr(t, "fft"), callable(t.fft.fft)), kind="behaviour"))
for _id, _fn in {"bad_norm": lambda t: t.fft.fft(t.ones(4), norm="bad"),
                 "bad_n": lambda t: t.fft.fft(t.ones(4), n=0),
                 "bad_dim": lambda t: t.fft.fft(t.ones(4), dim=3),
                 "rfft_complex": lambda t: t.fft.rfft(t.ones(4) + 1j)}.items():
    CASES.append(case(f"bad_input[{_id}]", (), _fn, kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_fft(c):
    run_case(c)
