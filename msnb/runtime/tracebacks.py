"""Tracebacks that show the user's code, not msnb's or MindSpore's.

A failing ``%%torch_on_ascend`` cell or ``msnb exec`` script shows its own
frames only: the cell (``Cell In[n], line k``, n the cell's own number) or
the script first, then the user's functions.  Frames of msnb, MindSpore,
IPython's magic machinery and ``runpy`` are dropped (``--verbose`` keeps
everything).  Besides being shorter this is faster: IPython reads the whole
source file of every frame it shows, and MindSpore's generated op files are
17,000 lines long (an interrupt inside one took 5.6 s to report).

An error raised by MindSpore itself inside an op is replaced by the exception
type a PyTorch user would have seen there (PyTorch reports shape and value
problems of its ops as ``RuntimeError``), naming the torch call the user made
and keeping MindSpore's first message line.
"""

from __future__ import annotations

import inspect
import os
import sys
import types
from typing import Any, Iterator

__all__ = ["ADAPTER_DIR", "hidden_dirs", "torch_name", "hidden_file", "user_traceback", "torch_call_of", "as_torch_error", "attach_renderer",
           "format_user_exception"]


def _package_dir(name: str) -> str | None:
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) + os.sep if path else None


_MSNB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
ADAPTER_DIR = os.path.join(_MSNB_DIR, "adapter") + os.sep
_ALWAYS_HIDDEN = (os.path.dirname(os.path.abspath(os.__file__)) + os.sep + "runpy.py", "<frozen ")


def hidden_dirs() -> tuple[str, ...]:
    dirs = [_MSNB_DIR]
    for name in ("mindspore", "IPython", "decorator"):
        found = _package_dir(name)
        if found:
            dirs.append(found)
    return tuple(dirs)


def hidden_file(filename: str, dirs: tuple[str, ...] | None = None) -> bool:
    """True for frames that are not the user's code (msnb, MindSpore, IPython, runpy)."""
    if filename.startswith(_ALWAYS_HIDDEN):
        return True
    path = os.path.abspath(filename) if not filename.startswith("<") else filename
    return path.startswith(dirs if dirs is not None else hidden_dirs())


def _library_file(filename: str) -> bool:
    """Standard library or installed packages (not the user's own files)."""
    if filename.startswith("<"):
        return filename.startswith("<frozen ")
    path = os.path.abspath(filename)
    return path.startswith(_LIBRARY_DIRS)


_LIBRARY_DIRS = tuple({os.path.abspath(p) + os.sep for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


def _frames(tb: types.TracebackType | None) -> Iterator[types.TracebackType]:
    while tb is not None:
        yield tb
        tb = tb.tb_next


def user_traceback(tb: types.TracebackType | None, start: str | None = None) -> types.TracebackType | None:
    """``tb`` without hidden frames, beginning at the first frame of file
    ``start`` (the cell or script) when there is one; ``tb`` itself if
    nothing would be left."""
    entries = list(_frames(tb))
    if start is not None:
        for i, entry in enumerate(entries):
            if entry.tb_frame.f_code.co_filename == start:
                entries = entries[i:]
                break
    dirs = hidden_dirs()
    kept, below_hidden = [], False
    for entry in entries:
        name = entry.tb_frame.f_code.co_filename
        if hidden_file(name, dirs):
            below_hidden = True
        elif not (below_hidden and _library_file(name)):  # stdlib called by MindSpore is not the user's
            kept.append(entry)
    if not kept:
        return tb
    new = None
    for entry in reversed(kept):
        new = types.TracebackType(new, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return new


def torch_call_of(tb: types.TracebackType | None) -> str | None:
    """The torch API the user called that led to the error: the first adapter
    frame after the user's last frame, named as PyTorch spells it."""
    entries = list(_frames(tb))
    dirs = hidden_dirs()
    call = None
    for i, entry in enumerate(entries):
        if not hidden_file(entry.tb_frame.f_code.co_filename, dirs):
            call = entries[i + 1] if i + 1 < len(entries) else None
    if call is None or not call.tb_frame.f_code.co_filename.startswith(ADAPTER_DIR):
        return None
    return torch_name(call.tb_frame)


def _public_module(name: str) -> str:
    """``msnb.adapter.torch._ops.linalg`` -> ``torch``; ``...torch.nn.modules.linear`` -> ``torch.nn``."""
    parts = name.replace("msnb.adapter.", "", 1).split(".")
    for i, part in enumerate(parts):
        if part.startswith("_"):
            parts = parts[:i]
            break
    if parts[:3] == ["torch", "nn", "modules"]:
        parts = parts[:2]
    return ".".join(parts)


def _adapter_class(cls: type) -> type:
    for base in cls.__mro__:  # the adapter class a user subclass derives from
        if (base.__module__ or "").startswith("msnb.adapter."):
            return base
    return cls


def _attribute_name(cls: type, code: Any) -> str | None:
    """The name under which ``cls`` holds the function running ``code`` (for lambdas)."""
    for base in cls.__mro__:
        for attr, value in vars(base).items():
            if getattr(value, "__code__", None) is code or getattr(getattr(value, "fget", None), "__code__", None) is code:
                return attr
    return None


def torch_name(frame: types.FrameType) -> str:
    """``torch.matmul``, ``torch.Tensor.view`` or ``torch.nn.Linear`` for an adapter frame."""
    code = frame.f_code
    name = code.co_name
    for var in code.co_freevars:  # a decorator's wrapper: name the function it wraps
        inner = frame.f_locals.get(var)
        if inspect.isfunction(inner):
            # the implementation under every layer of wrappers (out=, number arguments, ...): a
            # wrapper's copied __module__ can name another namespace sharing the implementation
            inner = inspect.unwrap(inner)
        if inspect.isfunction(inner) and (inner.__module__ or "").startswith("msnb.adapter."):
            return f"{_public_module(inner.__module__)}.{inner.__name__}"
    owner = frame.f_locals.get("self") if code.co_argcount else None
    if owner is not None and (type(owner).__module__ or "").startswith("msnb.adapter."):
        cls = _adapter_class(type(owner))
        public = f"{_public_module(cls.__module__)}.{cls.__qualname__}"
        if name in ("__call__", "_call_impl", "_wrapped_call_impl", "forward"):
            return public
        return f"{public}.{_attribute_name(cls, code) or name}"
    return f"{_public_module(frame.f_globals.get('__name__', 'torch'))}.{name}"


#: MindSpore exception type -> what PyTorch raises for the same problem in an op.
_TORCH_TYPES = {ValueError: RuntimeError, RuntimeError: RuntimeError, TypeError: TypeError,
                IndexError: IndexError, MemoryError: RuntimeError}


def _raised_by_mindspore(exc: BaseException) -> bool:
    last = None
    for last in _frames(exc.__traceback__):
        pass
    ms_dir = _package_dir("mindspore")
    return bool(last is not None and ms_dir and os.path.abspath(last.tb_frame.f_code.co_filename).startswith(ms_dir))


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("-"):
            return line
    return text.strip()


def as_torch_error(exc: BaseException) -> BaseException:
    """``exc`` itself, or for an error MindSpore raised inside an op, the
    PyTorch exception type naming the torch call (original as ``__cause__``
    is suppressed; MindSpore's first message line is kept)."""
    kind = _TORCH_TYPES.get(type(exc))
    if kind is None or not _raised_by_mindspore(exc):
        return exc
    call = torch_call_of(exc.__traceback__) or "a torch call"
    new = kind(f"{call}: {_first_line(str(exc))} (reported by MindSpore)")
    new.__suppress_context__ = True
    return new.with_traceback(exc.__traceback__)


def _filter_chain(exc: BaseException, start: str | None) -> None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.__traceback__ = user_traceback(current.__traceback__, start)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)


def attach_renderer(exc: BaseException, shell: Any, start: str | None) -> None:
    """Make IPython show ``exc`` with only the user's frames (its
    ``_render_traceback_`` hook, which ipykernel also sends to clients)."""

    def render() -> list[str]:
        _filter_chain(exc, start)
        return shell.InteractiveTB.structured_traceback(type(exc), exc, exc.__traceback__, tb_offset=0)

    try:
        exc._render_traceback_ = render
    except (AttributeError, TypeError):  # an exception type without instance attributes
        pass


def format_user_exception(exc: BaseException, start: str | None) -> str:
    """The text ``python SCRIPT`` would print, with only the user's frames."""
    import traceback

    _filter_chain(exc, start)
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
