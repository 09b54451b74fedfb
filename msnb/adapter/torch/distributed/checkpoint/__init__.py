"""``torch.distributed.checkpoint``: msnb has its ``state_dict`` helpers (get_/set_ model and optimizer
state dicts); saving and loading sharded checkpoints (``save``, ``load``, the planners and storages) is
not supported and says so."""

from __future__ import annotations

from .._missing_names import module_getattr as _module_getattr
from . import state_dict

__all__ = ["state_dict"]

__getattr__ = _module_getattr("torch.distributed.checkpoint", (
    "BytesStorageMetadata", "CheckpointException", "ChunkStorageMetadata", "DefaultLoadPlanner", "DefaultSavePlanner",
    "FileSystemReader", "FileSystemWriter", "HuggingFaceStorageReader", "HuggingFaceStorageWriter", "LoadPlan",
    "LoadPlanner", "Metadata", "QuantizedHuggingFaceStorageReader", "ReadItem", "SavePlan", "SavePlanner",
    "StorageReader", "StorageWriter", "TensorStorageMetadata", "WriteItem", "async_save", "load",
    "load_sharded_optimizer_state_dict", "load_state_dict", "save", "save_state_dict"))
