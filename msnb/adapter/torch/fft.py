"""msnb's ``torch.fft``: Fourier transforms on MindSpore's CPU FFT kernels,
with PyTorch's gradients (see ``_ops/spectral.py``)."""

from __future__ import annotations

from ._ops.spectral import (fft, fft2, fftfreq, fftn, fftshift, hfft, hfft2, hfftn, ifft, ifft2, ifftn,
                            ifftshift, ihfft, ihfft2, ihfftn, irfft, irfft2, irfftn, rfft, rfft2, rfftfreq,
                            rfftn)
from ._namespace import missing_attribute

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
           "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftshift", "ifftshift",
           "fftfreq", "rfftfreq"]


def __getattr__(name):
    raise missing_attribute("torch.fft", name)


from . import _out_arg  # noqa: E402 - wraps the functions defined above
_out_arg.apply(globals(), "torch.fft")
from . import _numpy_compat as _np_compat  # noqa: E402 - last: wraps the functions defined above
_np_compat.apply(globals(), "torch.fft")
