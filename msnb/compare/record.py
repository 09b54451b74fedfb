"""What one side of a comparison records while a cell runs.

A :class:`Recorder` sees every module call (its output tensors, and the
gradient that reaches each output in backward), every ``Tensor.backward``
(the loss) and every optimizer step (the step counter).  Records are keyed
by ``(step, module path, call index)``: the path is the module's attribute
path from the outermost module being called (``LeNet.fc1``), the call index
counts calls of that path within the step.  The same class serves both
sides; :func:`hooks_msnb` and :func:`hooks_torch` attach it to msnb's
adapter or to real PyTorch for the duration of a ``with`` block and remove
everything on exit.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

__all__ = ["Record", "Recorder", "hooks_msnb", "hooks_torch"]

@dataclass
class Record:
    """One module call: outputs (and their gradients, filled in by backward)."""

    step: int
    path: str
    call: int
    kind: str
    line: int | None
    outputs: list = field(default_factory=list)
    grads: dict = field(default_factory=dict)

    @property
    def key(self):
        return (self.step, self.path, self.call)


def _host(t) -> np.ndarray:
    """A tensor's values as a float64 / integer numpy array (both libraries)."""
    t = t.detach()
    if "bfloat16" in str(t.dtype) or "float16" in str(t.dtype):
        t = t.float()
    a = np.asarray(t.numpy())
    return a.astype(np.float64) if a.dtype.kind == "f" else a


class Recorder:
    """Collects one side's records.  ``is_tensor`` tells the side's tensors apart;
    ``cell_files`` are the filenames the cell's code runs under (for line numbers)."""

    def __init__(self, is_tensor, cell_files=(), max_steps: int = 50):
        self.is_tensor = is_tensor
        self.cell_files = set(cell_files)
        self.max_steps = max_steps
        self.records: list[Record] = []
        self.losses: dict[int, float] = {}
        self.step = 0
        self._stack: list[tuple[Any, str]] = []
        self._calls: dict[tuple[int, str], int] = {}

    @property
    def active(self) -> bool:
        return self.step < self.max_steps

    # --- module calls -------------------------------------------------------------
    def _name_in(self, parent, module) -> str:
        for name, child in getattr(parent, "_modules", {}).items():
            if child is module:
                return name
        for name, child in parent.named_modules():
            if child is module and name:
                return name
        return type(module).__name__

    def enter(self, module) -> None:
        if self._stack:
            parent, ppath = self._stack[-1]
            path = f"{ppath}.{self._name_in(parent, module)}"
        else:
            path = type(module).__name__
        self._stack.append((module, path))

    def _cell_line(self) -> int | None:
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename in self.cell_files:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def exit(self, module, output) -> None:
        _, path = self._stack.pop()
        if not self.active:
            return
        key = (self.step, path)
        call = self._calls.get(key, 0)
        self._calls[key] = call + 1
        rec = Record(self.step, path, call, type(module).__name__, self._cell_line())
        for i, t in enumerate(self._tensors(output)):
            rec.outputs.append(_host(t))
            if getattr(t, "requires_grad", False):
                t.register_hook(self._grad_hook(rec, i))
        self.records.append(rec)

    def abandon(self) -> None:
        """A module call raised: drop its frame."""
        if self._stack:
            self._stack.pop()

    def _tensors(self, out):
        if self.is_tensor(out):
            return [out]
        if isinstance(out, (tuple, list)):
            return [t for o in out for t in self._tensors(o)]
        if isinstance(out, dict):
            return [t for o in out.values() for t in self._tensors(o)]
        return []

    @staticmethod
    def _grad_hook(rec, i):
        def hook(grad):
            if grad is not None:
                rec.grads[i] = _host(grad)
        return hook

    # --- losses and steps -----------------------------------------------------------
    def backward(self, tensor) -> None:
        if self.active and tensor.numel() == 1:
            self.losses[self.step] = float(tensor.detach().reshape(()).item())

    def optimizer_step(self) -> None:
        self.step += 1

    def payload(self) -> dict:
        return {"records": [r.__dict__ for r in self.records], "losses": self.losses, "steps": self.step}


@contextlib.contextmanager
def hooks_msnb(rec: Recorder) -> Iterator[Recorder]:
    """Attach ``rec`` to msnb's adapter (its own classes, restored on exit)."""
    from msnb.adapter.torch._tensor import Tensor
    from msnb.adapter.torch.nn.modules.module import Module
    from msnb.adapter.torch.optim.optimizer import Optimizer

    call, backward, step = Module._call_eager, Tensor.backward, Optimizer.step

    def _call_eager(self, args, kwargs):
        rec.enter(self)
        try:
            out = call(self, args, kwargs)
        except BaseException:
            rec.abandon()
            raise
        rec.exit(self, out)
        return out

    def _backward(self, *args, **kwargs):
        rec.backward(self)
        return backward(self, *args, **kwargs)

    def _step(self, *args, **kwargs):
        out = step(self, *args, **kwargs)
        rec.optimizer_step()
        return out

    Module._call_eager, Tensor.backward, Optimizer.step = _call_eager, _backward, _step
    try:
        yield rec
    finally:
        Module._call_eager, Tensor.backward, Optimizer.step = call, backward, step


@contextlib.contextmanager
def hooks_torch(torch, rec: Recorder) -> Iterator[Recorder]:
    """Attach ``rec`` to real PyTorch with its global hooks (the child process)."""
    from torch.nn.modules import module as M
    from torch.optim import optimizer as O

    def pre(module, args):
        rec.enter(module)

    def post(module, args, out):
        rec.exit(module, out)

    backward = torch.Tensor.backward

    def _backward(self, *args, **kwargs):
        rec.backward(self)
        return backward(self, *args, **kwargs)

    handles = [M.register_module_forward_pre_hook(pre), M.register_module_forward_hook(post, always_call=False),
               O.register_optimizer_step_post_hook(lambda opt, args, kwargs: rec.optimizer_step())]
    torch.Tensor.backward = _backward
    try:
        yield rec
    finally:
        torch.Tensor.backward = backward
        for h in handles:
            h.remove()
