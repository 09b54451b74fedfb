"""``torch.stft``: the short-time Fourier transform, from msnb's own frames and FFTs."""

from __future__ import annotations

from . import pointwise as P
from .spectral import fft, rfft

__all__ = ["stft"]


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """msnb implementation of ``torch.stft``: windowed frames (``Tensor.unfold``) through ``rfft`` / ``fft``,
    differentiable through both."""
    from . import shape as S
    from .complex import view_as_real
    from .positions import unfold
    if align_to_window:
        from .._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message("torch.stft(align_to_window=True)"))
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not 0 < n_fft or not 0 < win <= n_fft or hop <= 0:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft and hop_length > 0, but got n_fft={n_fft}, "
                           f"win_length={win}, hop_length={hop}")
    x = input if input.ndim == 2 else S.unsqueeze(input, 0)
    if center:
        from ..nn import functional as F
        p = n_fft // 2
        x = S.squeeze(F.pad(S.unsqueeze(x, 1), [p, p], mode=pad_mode), 1)
    if x.shape[-1] < n_fft:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {x.shape[-1]}, but got n_fft={n_fft}")
    frames = unfold(x, -1, n_fft, hop)  # (batch, n_frames, n_fft)
    if window is not None:
        w = window
        if win < n_fft:
            left = (n_fft - win) // 2
            from .creation import zeros
            w = S.cat([zeros(left, dtype=w.dtype), w, zeros(n_fft - win - left, dtype=w.dtype)])
        frames = P.mul(frames, w)
    if onesided is None:
        onesided = not (input.dtype.is_complex or (window is not None and window.dtype.is_complex))
    spec = rfft(frames, dim=-1) if onesided else fft(frames, dim=-1)
    if normalized:
        spec = P.mul(spec, n_fft ** -0.5)
    spec = S.transpose(spec, -1, -2)  # (batch, freq, n_frames)
    if input.ndim == 1:
        spec = S.squeeze(spec, 0)
    return spec if return_complex else view_as_real(spec)
