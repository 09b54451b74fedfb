"""msnb implementation of ``torch.distributed.checkpoint.state_dict_saver``: ``save`` / ``save_state_dict``."""

from __future__ import annotations

import os
import warnings

from .._missing_names import module_getattr as _module_getattr
from . import _dcp

__all__ = ["save", "save_state_dict"]

_NO_PG = ("torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to {} in a single "
          "process.")


def _single(no_dist, what):
    from .. import is_initialized
    if not no_dist and not is_initialized():
        warnings.warn(_NO_PG.format(what), stacklevel=3)
        return True
    return no_dist


def _path(checkpoint_id, storage, what):
    if storage is not None:
        from .filesystem import FileSystemReader, FileSystemWriter
        if not isinstance(storage, (FileSystemReader, FileSystemWriter)):
            raise _dcp.NotSupportedError(_dcp.not_supported_message(
                f"torch.distributed.checkpoint.{what} with a {type(storage).__name__} storage (msnb has "
                "FileSystemWriter / FileSystemReader)"))
        return os.fspath(checkpoint_id) if checkpoint_id is not None else storage.path
    if checkpoint_id is None:
        raise RuntimeError("`checkpoint_id` must be specified if storage_writer/storage_reader is None.")
    return os.fspath(checkpoint_id)


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None,
         no_dist=False, use_collectives=True):
    """msnb implementation of ``torch.distributed.checkpoint.save``: every rank calls it with its part."""
    no_dist = _single(no_dist, "save")
    return _dcp.save_dir(state_dict, _path(checkpoint_id, storage_writer, "save"), process_group=process_group,
                         no_dist=no_dist)


def _needs_group(no_dist):
    """The older names do not fall back to one process: PyTorch's ValueError without a process group."""
    from .. import is_initialized
    if not no_dist and not is_initialized():
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None):
    """msnb implementation of the older ``save_state_dict`` (PyTorch warns it is deprecated, as msnb)."""
    warnings.warn("'save_state_dict' is deprecated and will be removed in future versions.Please use 'save' "
                  "instead.", FutureWarning, stacklevel=2)
    _needs_group(no_dist)
    return save(state_dict, storage_writer=storage_writer, process_group=process_group, no_dist=no_dist,
                planner=planner)


__getattr__ = _module_getattr("torch.distributed.checkpoint.state_dict_saver", (
    "async_save", "AsyncCheckpointerType", "AsyncSaveResponse"))
