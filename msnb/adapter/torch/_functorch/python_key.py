"""``functorch.make_fx``: tracing to an FX graph through PyTorch's dispatcher, which msnb does not have."""

from __future__ import annotations

from .._missing import NotSupportedError, not_supported_message

__all__ = ["make_fx"]


def make_fx(f, *args, **kwargs):
    raise NotSupportedError(not_supported_message("functorch.make_fx (torch.fx.experimental.proxy_tensor.make_fx)"))
