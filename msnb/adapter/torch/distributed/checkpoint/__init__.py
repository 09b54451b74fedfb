"""msnb implementation of ``torch.distributed.checkpoint``: ``save`` / ``load`` of (sharded) state dicts
to a directory with one file per rank plus ``.metadata`` (msnb's own format, read without running code:
see ``_dcp.py``), the planners' options, ``Stateful`` objects, and the ``state_dict`` helpers (get_ / set_
model and optimizer state dicts).  PyTorch-written checkpoint directories (pickled ``.metadata``) are
refused by name; asynchronous saving, custom storages and the Hugging Face storages are not supported and
say so."""

from __future__ import annotations

from .._missing_names import module_getattr as _module_getattr
from . import api, default_planner, filesystem, metadata, state_dict, state_dict_loader, state_dict_saver, stateful
from .api import CheckpointException
from .default_planner import DefaultLoadPlanner, DefaultSavePlanner
from .filesystem import FileSystemReader, FileSystemWriter
from .metadata import BytesStorageMetadata, ChunkStorageMetadata, Metadata, TensorStorageMetadata
from .state_dict_loader import load, load_state_dict
from .state_dict_saver import save, save_state_dict

__all__ = ["state_dict", "save", "load", "save_state_dict", "load_state_dict", "FileSystemWriter",
           "FileSystemReader", "DefaultSavePlanner", "DefaultLoadPlanner", "CheckpointException", "Metadata",
           "TensorStorageMetadata", "ChunkStorageMetadata", "BytesStorageMetadata", "api", "default_planner",
           "filesystem", "metadata", "state_dict_loader", "state_dict_saver", "stateful"]

__getattr__ = _module_getattr("torch.distributed.checkpoint", (
    "HuggingFaceStorageReader", "HuggingFaceStorageWriter", "LoadPlan", "LoadPlanner",
    "QuantizedHuggingFaceStorageReader", "ReadItem", "SavePlan", "SavePlanner", "StorageReader", "StorageWriter",
    "WriteItem", "async_save", "load_sharded_optimizer_state_dict"))
