"""msnb implementation of ``torch.distributed.checkpoint.filesystem``: a checkpoint in a local directory.

``FileSystemWriter(path)`` / ``FileSystemReader(path)`` name the directory
``save`` writes (``.metadata`` plus one ``__<rank>_0.distcp`` per rank: msnb's
format, see ``docs/fsdp-tensor-parallel.md``) and ``load`` reads; the writer's
tuning options (threads, sync_files, ...) are accepted and make no difference."""

from __future__ import annotations

import os

from .._missing_names import module_getattr as _module_getattr

__all__ = ["FileSystemWriter", "FileSystemReader"]


class FileSystemWriter:
    """msnb implementation of ``FileSystemWriter``."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000, cache_staged_state_dict=False, overwrite=True, **kwargs):
        self.path = os.fspath(path)
        self.single_file_per_rank = single_file_per_rank
        self.overwrite = overwrite

    @property
    def checkpoint_id(self):
        return self.path


class FileSystemReader:
    """msnb implementation of ``FileSystemReader``: ``read_metadata()`` gives the checkpoint's Metadata."""

    def __init__(self, path, **kwargs):
        self.path = os.fspath(path)

    @property
    def checkpoint_id(self):
        return self.path

    def read_metadata(self):
        from ._dcp import _metadata, read_metadata
        return _metadata(read_metadata(self.path)["entries"])


__getattr__ = _module_getattr("torch.distributed.checkpoint.filesystem", (
    "FileSystem", "FileSystemBase", "SerializationFormat"))
