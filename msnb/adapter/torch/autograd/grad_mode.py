"""Grad-mode switches: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``.  One flag, read by every op before it records a node."""

from __future__ import annotations

import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]


class _State:
    """Grad mode.  Instance attributes, not class-level defaults: Python 3.11 specializes
    reading an instance's own attribute (``STATE.enabled``, read by every op), not one
    that falls back to the class."""

    def __init__(self):
        self.enabled = True
        self.inference = False
        #: an inference_mode block has run: from then on autograd checks that it saves no
        #: inference tensor (code that never uses inference_mode pays nothing for the check)
        self.inference_seen = False


STATE = _State()
#: ``[n]``: forward-AD levels open (torch.autograd.forward_ad); while one is, turning
#: grad recording off is counted in ``GRAD_OFF_SEEN`` (tangents cannot flow there)
FORWARD_AD_LEVELS = [0]
GRAD_OFF_SEEN = [0]


def _grad_off():
    if FORWARD_AD_LEVELS[0]:
        GRAD_OFF_SEEN[0] += 1


def is_grad_enabled() -> bool:
    """msnb implementation of ``torch.is_grad_enabled``."""
    return STATE.enabled


def is_inference_mode_enabled() -> bool:
    """msnb implementation of ``torch.is_inference_mode_enabled``."""
    return STATE.inference


class _GradModeContext:
    """Base for the switches: a context manager and a decorator, like torch's."""

    _target = True

    def __enter__(self):
        self._prev = STATE.enabled
        if not self._target:
            _grad_off()
        STATE.enabled = self._target
        return self

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradModeContext):  # noqa: N801
    """msnb implementation of ``torch.no_grad``."""

    _target = False


class enable_grad(_GradModeContext):  # noqa: N801
    """msnb implementation of ``torch.enable_grad``: a context manager, or a
    decorator with or without parentheses (``@torch.enable_grad``)."""

    _target = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """msnb implementation of ``torch.set_grad_enabled``: works as a function
    call (takes effect at once) and as a context manager (restores on exit)."""

    def __init__(self, mode: bool):
        self._prev = STATE.enabled
        self._target = bool(mode)
        if not self._target:
            _grad_off()
        STATE.enabled = self._target

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def clone(self):
        return set_grad_enabled(self._target)


class inference_mode(_GradModeContext):  # noqa: N801
    """msnb implementation of ``torch.inference_mode``: no graph is recorded, and tensors made
    inside are inference tensors (``is_inference()``), as in PyTorch: outside the block they
    cannot be saved for backward, written in place or made to require grad.  A view of a
    normal tensor taken inside stays normal; in-place writes into normal tensors inside keep
    them normal."""

    def __init__(self, mode: bool = True):
        self._mode = bool(mode)

    def __enter__(self):
        self._prev = STATE.enabled
        self._prev_inf = STATE.inference
        if self._mode:
            _grad_off()
            STATE.enabled = False
            STATE.inference = True
            STATE.inference_seen = True
        else:  # PyTorch's InferenceMode(false) turns grad mode on
            STATE.enabled = True
            STATE.inference = False
        return self

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        STATE.inference = self._prev_inf
        return False

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError("inference_mode takes a bool or a function")
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper
