"""msnb implementation of ``torch.nn.utils`` (gradient clipping, parameter vectors)."""

from __future__ import annotations

from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grad_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import parametrize, prune, rnn

__all__ = ["parametrize", "prune", "rnn",
           "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters"]


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.utils")
