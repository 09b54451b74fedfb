"""msnb implementation of the few ``torch._C`` names libraries call.

``torch._C`` is PyTorch's compiled core; msnb has none.  Libraries built on
torch (torchmetrics, lightning, ...) call a handful of its functions that
have an effect only inside PyTorch's own tooling; msnb gives those with the
same observable behaviour.  Every other ``torch._C`` name raises msnb's
unsupported error.
"""

from __future__ import annotations

from ._missing import NotSupportedError, not_supported_message

__all__ = ["_log_api_usage_once", "_get_tracing_state"]


def _log_api_usage_once(event: str) -> None:
    """PyTorch records ``event`` for its internal API-usage logger (off unless
    ``PYTORCH_API_USAGE_STDERR`` is set, when it prints ``PYTORCH_API_USAGE event``
    once per event to stderr); msnb does the same."""
    import os
    import sys
    if not isinstance(event, str):
        raise TypeError(f"_log_api_usage_once(): argument 'event' must be str, not {type(event).__name__}")
    if os.environ.get("PYTORCH_API_USAGE_STDERR") and event not in _LOGGED:
        _LOGGED.add(event)
        print(f"PYTORCH_API_USAGE {event}", file=sys.stderr)


_LOGGED: set[str] = set()


def _get_tracing_state():
    """None: msnb never traces TorchScript (``torch.jit.trace`` compiles with graph mode instead)."""
    return None


def __getattr__(name):
    raise NotSupportedError(not_supported_message(f"torch._C.{name}"))
