"""The OpInfo replay's own plumbing (``msnb/adapter/opinfo.py``): PyTorch's
lazily conjugated results (``fft.ifft`` / ``fft.ihfft`` of real input carry
the conjugate bit, and ``numpy()`` refuses them) are read through
``resolve_conj``, and module cases move both modules to the case's dtype as
PyTorch's module tests do (a FractionalMaxPool built with float64
``_random_samples`` replays in float32)."""

from __future__ import annotations

import numpy as np
import torch

from msnb.adapter import opinfo


def test_conjugate_bit_results_are_read():
    y = torch.fft.ihfft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    assert y.is_conj()
    np.testing.assert_allclose(opinfo._np(y), np.conj(np.fft.rfft([1.0, 2.0, 3.0, 4.0])) / 4, rtol=1e-6)


def test_module_case_moves_buffers_to_its_dtype():
    _, module_db = opinfo.load_dbs()
    cases = [c for c in opinfo.module_cases(module_db) if c.key == "nn.FractionalMaxPool2d:module:float32"]
    assert len(cases) == 1
    out = opinfo.run_case(cases[0], limit=2)
    assert out.ok, out.failures
