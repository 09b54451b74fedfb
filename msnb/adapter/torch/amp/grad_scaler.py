"""msnb implementation of ``torch.amp.GradScaler``: dynamic loss scaling.

Same state machine and the same scale arithmetic as PyTorch's (float32 scale,
``growth_factor`` / ``backoff_factor`` / ``growth_interval``): a step whose
gradients hold an inf or NaN is skipped and the scale multiplied by
``backoff_factor``; after ``growth_interval`` clean steps in a row it is
multiplied by ``growth_factor`` (if the result is finite).  For any sequence
of finite / non-finite gradients the scale sequence equals PyTorch's.

The scale is kept on the host as a float32 number rather than a device tensor:
PyTorch keeps it on the GPU only to avoid a sync, and msnb needs the inf check
on the host anyway to decide whether to call ``optimizer.step()``.

Every ``device`` ("cuda", "cpu", "npu") means MindSpore's device, so
``GradScaler("cuda")`` is enabled on a machine without CUDA, where PyTorch
would warn and disable it.
"""

from __future__ import annotations

from collections import abc, defaultdict
from enum import Enum
from typing import Any

import numpy as np

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf": None}


class GradScaler:
    """msnb implementation of ``torch.amp.GradScaler``."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: np.float32 | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: int | None = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _lazy_init(self) -> None:
        if self._scale is None:
            self._scale = np.float32(self._init_scale)
            self._growth_tracker = int(self._init_growth_tracker)

    def _scale_tensor(self):
        from .._ops.creation import tensor
        from .. import _dtype as D

        return tensor(float(self._scale), dtype=D.float32)

    def scale(self, outputs):
        """Multiply ``outputs`` (a tensor or an iterable of tensors) by the scale."""
        if not self._enabled:
            return outputs
        from .._tensor import Tensor

        self._lazy_init()
        if isinstance(outputs, Tensor):
            return outputs * self._scale_tensor()
        scale = self._scale_tensor()

        def apply_scale(val):
            if isinstance(val, Tensor):
                return val * scale
            if isinstance(val, abc.Iterable):
                iterable = map(apply_scale, val)
                if isinstance(val, (list, tuple)):
                    return type(val)(iterable)
                return iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale: float, allow_fp16: bool) -> bool:
        """Multiply every grad by ``inv_scale`` in place; return True if any was inf/NaN."""
        from .. import _dtype as D
        from .._ops import pointwise as P
        from .._ops.creation import tensor
        from ..autograd.grad_mode import no_grad

        flags = []
        inv = tensor(inv_scale, dtype=D.float32)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype is D.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grad = param.grad
                    flags.append(P.isfinite(grad).all())
                    grad.mul_(inv if grad.dtype is D.float32 else inv.to(grad.dtype))
        if not flags:
            return False
        from .._ops.shape import stack

        return not bool(stack(flags).all().item())

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale (once per step), recording inf/NaN."""
        if not self._enabled:
            return
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        self._lazy_init()
        # PyTorch computes the reciprocal in float64, then rounds it to float32
        inv_scale = float(np.float32(1.0 / np.float64(self._scale)))
        state["found_inf"] = self._unscale_grads_(optimizer, inv_scale, False)
        state["has_grads"] = True
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the unscaled gradients hold an inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not state["found_inf"]:
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Grow or back off the scale from this iteration's inf checks (or set ``new_scale``)."""
        if not self._enabled:
            return
        self._lazy_init()
        if new_scale is not None:
            from .._tensor import Tensor

            if isinstance(new_scale, float):
                self._scale = np.float32(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, Tensor) or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                self._scale = np.float32(new_scale.item())
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale = np.float32(np.float64(self._scale) * self._backoff_factor)
                self._growth_tracker = 0
            else:
                successful = self._growth_tracker + 1
                if successful == self._growth_interval:
                    grown = np.float32(np.float64(self._scale) * self._growth_factor)
                    if np.isfinite(grown):
                        self._scale = grown
                    self._growth_tracker = 0
                else:
                    self._growth_tracker = successful
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return float(self._init_scale) if self._scale is None else float(self._scale)
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker
        return 0

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """PyTorch's five entries (empty when disabled); loadable by real PyTorch too."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale = np.float32(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker = int(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an "
                                     "iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
