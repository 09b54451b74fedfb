"""The OpInfo replay's own plumbing (``msnb/adapter/opinfo.py``): PyTorch's
lazily conjugated results (``fft.ifft`` / ``fft.ihfft`` of real input carry
the conjugate bit, and ``numpy()`` refuses them) are read through
``resolve_conj``.  (Module cases move both modules to the case's dtype as
PyTorch's module tests do; the replay suite's FractionalMaxPool cases show
it, and tests/adapter/torch/nn/test_diff_fractional_samples.py the module's
own ``.to``.)"""

from __future__ import annotations

import numpy as np
import torch

from msnb.adapter import opinfo


def test_conjugate_bit_results_are_read():
    y = torch.fft.ihfft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    assert y.is_conj()
    np.testing.assert_allclose(opinfo._np(y), np.conj(np.fft.rfft([1.0, 2.0, 3.0, 4.0])) / 4, rtol=1e-6)
