"""msnb implementation of ``torch.distributed.fsdp.wrap``: FSDP1's auto-wrap policies and ``wrap``.

The policy functions answer as PyTorch's (``recurse=True``: may the walk go
below this module; ``recurse=False``: should this module be its own FSDP
unit).  msnb's ``FullyShardedDataParallel`` accepts a policy and makes one
unit of the whole module, which gives the same values (see
docs/fsdp-tensor-parallel.md); ``wrap`` inside ``enable_wrap`` wraps with the
given class, as PyTorch's."""

from __future__ import annotations

import contextlib

from .._missing_names import module_getattr as _module_getattr

__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "ModuleWrapPolicy", "enable_wrap", "wrap"]


def _nn():
    from ... import nn
    return nn


def always_wrap_policy(*args, **kwargs) -> bool:
    """msnb implementation of ``always_wrap_policy``: every module."""
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn) -> bool:
    """msnb implementation of ``lambda_auto_wrap_policy``: modules ``lambda_fn`` picks."""
    return True if recurse else lambda_fn(module)


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls) -> bool:
    """msnb implementation of ``transformer_auto_wrap_policy``: instances of the layer classes."""
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None) -> bool:
    """msnb implementation of ``size_based_auto_wrap_policy``: only below / at modules with at least
    ``min_num_params`` not yet wrapped parameters (never into the leaf classes; never the excluded ones)."""
    me = size_based_auto_wrap_policy
    leaves = tuple(force_leaf_modules if force_leaf_modules is not None else me.FORCE_LEAF_MODULES)
    excluded = tuple(exclude_wrap_modules if exclude_wrap_modules is not None else me.EXCLUDE_WRAP_MODULES)
    large = nonwrapped_numel >= min_num_params
    return large and not isinstance(module, leaves if recurse else excluded)


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {_nn().ModuleList, _nn().ModuleDict}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {_nn().MultiheadAttention}


class ModuleWrapPolicy:
    """msnb implementation of ``ModuleWrapPolicy``: instances of ``module_classes`` are units."""

    def __init__(self, module_classes):
        self._module_classes = set(module_classes)
        self._module_classes_str = str(self._module_classes)

    def __call__(self, module, recurse, *args, **kwargs):
        return transformer_auto_wrap_policy(module, recurse, 0, self._module_classes)

    def __repr__(self):
        return super().__repr__() + f"({self._module_classes_str})"


_CONTEXT: list = []


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """msnb implementation of ``enable_wrap``: inside it, ``wrap(m)`` gives ``wrapper_cls(m, **kwargs)``."""
    if _CONTEXT:
        raise NotImplementedError("You are already within an autowrap context and we currently do not supported "
                                  "nested autowrap.")
    _CONTEXT.append((wrapper_cls, wrapper_kwargs))
    try:
        yield
    finally:
        _CONTEXT.clear()


def wrap(module, **wrap_overrides):
    """msnb implementation of ``wrap``: the module itself outside ``enable_wrap``."""
    if not _CONTEXT:
        return module
    cls, kwargs = _CONTEXT[0]
    return cls(module, **{**kwargs, **wrap_overrides})


__getattr__ = _module_getattr("torch.distributed.fsdp.wrap", ("CustomPolicy",))
