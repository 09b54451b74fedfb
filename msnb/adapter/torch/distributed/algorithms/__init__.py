"""msnb implementation of ``torch.distributed.algorithms``: the activation-checkpoint wrapper
(``_checkpoint.checkpoint_wrapper``) only; ``Join`` and the DDP communication hooks are not supported and
say so."""

from __future__ import annotations

from .._missing_names import module_getattr as _module_getattr

__all__: list = []

__getattr__ = _module_getattr("torch.distributed.algorithms", ("Join", "JoinHook", "Joinable", "join",
                                                                "ddp_comm_hooks", "model_averaging"))
