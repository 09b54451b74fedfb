"""msnb implementation of ``torch.compiler``: ``set_stance`` and ``reset`` for
modules ``torch.compile`` wraps (they run as msnb graph-mode graphs)."""

from __future__ import annotations

import contextlib
import functools

from ...graph import compiled as _compiled

__all__ = ["set_stance", "reset", "is_compiling", "is_dynamo_compiling", "is_exporting", "compile"]


class set_stance(contextlib.ContextDecorator):  # noqa: N801 - PyTorch's spelling
    """Set how ``torch.compile``'d modules run: ``"default"`` (compiled graphs) or
    ``"force_eager"`` (their plain eager forward).  Takes effect at once, as a
    context manager until its end, as a decorator during the function's calls."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        if force_backend is not None and force_backend != "eager":
            from .._missing import NotSupportedError, not_supported_message
            raise NotSupportedError(not_supported_message(f"torch.compiler.set_stance(force_backend={force_backend!r})"))
        self.stance = "force_eager" if force_backend == "eager" else stance
        self.prev = _compiled.STANCE[0]
        _compiled.STANCE[0] = self.stance

    def __call__(self, fn):
        _compiled.STANCE[0] = self.prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _compiled.STANCE[0]
            _compiled.STANCE[0] = self.stance
            try:
                return fn(*args, **kwargs)
            finally:
                _compiled.STANCE[0] = prev

        return wrapper

    def __enter__(self):
        _compiled.STANCE[0] = self.stance
        return None

    def __exit__(self, *exc):
        _compiled.STANCE[0] = self.prev
        return False


def reset() -> None:
    """Drop every compiled module's graphs (they are recorded again on their next calls)."""
    _compiled.reset()


def is_compiling() -> bool:
    """Whether the code runs inside a graph msnb is recording."""
    from ...graph import capture
    return capture.current() is not None


is_dynamo_compiling = is_compiling


def is_exporting() -> bool:
    return False


def compile(*args, **kwargs):  # noqa: A001
    from .._interop import compile as _compile
    return _compile(*args, **kwargs)


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.compiler")
