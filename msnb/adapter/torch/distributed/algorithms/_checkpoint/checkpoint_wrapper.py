"""msnb implementation of ``torch.distributed.algorithms._checkpoint.checkpoint_wrapper``.

``checkpoint_wrapper(m)`` gives a ``CheckpointWrapper`` holding ``m`` as
``_checkpoint_wrapped_module`` (PyTorch's layout: ``named_parameters()`` of an
outer module shows that segment, ``state_dict()`` keys drop it, attributes
reach the wrapped module); ``apply_activation_checkpointing`` puts the
wrapper around the submodules ``check_fn`` picks.  msnb has no activation
recomputation: the wrapped module runs as it is, so values and gradients are
PyTorch's and the activations are kept (no memory is saved)."""

from __future__ import annotations

from enum import Enum, auto

from ...._missing import NotSupportedError, not_supported_message
from ..._missing_names import module_getattr as _module_getattr

__all__ = ["CheckpointImpl", "ActivationWrapper", "CheckpointWrapper", "checkpoint_wrapper",
           "apply_activation_checkpointing"]

_WRAPPED = "_checkpoint_wrapped_module"


def _nn():
    from .... import nn
    return nn


class CheckpointImpl(Enum):
    """msnb implementation of ``CheckpointImpl``."""

    REENTRANT = auto()
    NO_REENTRANT = auto()


def _base():
    return _nn().Module


class ActivationWrapper(_base()):
    """msnb implementation of ``ActivationWrapper``: the wrapped module as ``_checkpoint_wrapped_module``."""

    def __init__(self, mod):
        super().__init__()
        self._checkpoint_wrapped_module = mod

    def forward(self, *args, **kwargs):
        return self._checkpoint_wrapped_module(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            inner = (self.__dict__.get("_modules") or {}).get(_WRAPPED)
            if inner is None:  # still being built (MindSpore's Cell looks attributes up first)
                raise
            return getattr(inner, name)

    def __getitem__(self, key):
        return self._checkpoint_wrapped_module.__getitem__(key)

    def named_parameters(self, *args, **kwargs):
        """The wrapped module's names, without the wrapper's segment (as PyTorch's)."""
        for name, p in super().named_parameters(*args, **kwargs):
            yield name.replace(f"{_WRAPPED}.", ""), p

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        return self._checkpoint_wrapped_module.state_dict(destination=destination, prefix=prefix,
                                                          keep_vars=keep_vars)


class CheckpointWrapper(ActivationWrapper):
    """msnb implementation of ``CheckpointWrapper`` (runs the module without recomputation)."""

    def __init__(self, mod, checkpoint_impl=CheckpointImpl.NO_REENTRANT, checkpoint_fn=None, **checkpoint_fn_kwargs):
        super().__init__(mod)
        if checkpoint_fn is not None:
            raise NotSupportedError(not_supported_message(
                "torch.distributed.algorithms._checkpoint.checkpoint_wrapper.CheckpointWrapper(checkpoint_fn=...)"))
        self.__dict__["checkpoint_impl"] = checkpoint_impl
        # torch.utils.checkpoint's own options are taken; any other keyword reaches forward, as in PyTorch
        self.__dict__["_msnb_forward_kwargs"] = {k: v for k, v in checkpoint_fn_kwargs.items() if k not in (
            "preserve_rng_state", "context_fn", "determinism_check", "debug", "use_reentrant")}

    def forward(self, *args, **kwargs):
        return self._checkpoint_wrapped_module(*args, **kwargs, **self.__dict__["_msnb_forward_kwargs"])


def checkpoint_wrapper(module, checkpoint_impl=CheckpointImpl.NO_REENTRANT, checkpoint_fn=None,
                       **checkpoint_fn_kwargs):
    """msnb implementation of ``checkpoint_wrapper`` (keywords other than torch.utils.checkpoint's reach
    the module's forward, as in PyTorch 2.13: ``offload_to_cpu=False`` there is a TypeError in both)."""
    return CheckpointWrapper(module, checkpoint_impl, checkpoint_fn, **checkpoint_fn_kwargs)


def apply_activation_checkpointing(model, checkpoint_wrapper_fn=checkpoint_wrapper, check_fn=lambda _: True,
                                   auto_wrap_policy=None):
    """msnb implementation of ``apply_activation_checkpointing``: wraps, in place, every submodule below
    ``model`` that ``check_fn`` (or ``auto_wrap_policy(module, False, numel)``) picks, innermost first."""
    def picked(m):
        if auto_wrap_policy is not None:
            return auto_wrap_policy(module=m, recurse=False, nonwrapped_numel=sum(p.numel() for p in m.parameters()))
        return check_fn(m)

    def walk(parent):
        for name, child in list(parent._modules.items()):
            if child is None or isinstance(child, ActivationWrapper):
                continue
            walk(child)
            if picked(child):
                setattr(parent, name, checkpoint_wrapper_fn(child))

    walk(model)


__getattr__ = _module_getattr("torch.distributed.algorithms._checkpoint.checkpoint_wrapper", (
    "OffloadWrapper", "offload_wrapper"))
