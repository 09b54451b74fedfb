"""msnb implementation of ``torch.distributed.checkpoint.metadata``: what a checkpoint directory holds.

``save`` returns a :class:`Metadata` whose ``state_dict_metadata`` maps each
flattened key (``"model.w1.weight"``) to a :class:`TensorStorageMetadata`
(global size and the chunks the ranks wrote) or a :class:`BytesStorageMetadata`
(a non-tensor value), as PyTorch's does."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["ChunkStorageMetadata", "TensorStorageMetadata", "BytesStorageMetadata", "Metadata"]


@dataclasses.dataclass
class ChunkStorageMetadata:
    """msnb implementation of ``ChunkStorageMetadata``: where one saved piece sits in the whole tensor."""

    offsets: Any
    sizes: Any


@dataclasses.dataclass
class TensorStorageMetadata:
    """msnb implementation of ``TensorStorageMetadata`` (``properties`` holds the dtype only)."""

    properties: Any
    size: Any
    chunks: list


@dataclasses.dataclass
class BytesStorageMetadata:
    """msnb implementation of ``BytesStorageMetadata``: a non-tensor value."""


@dataclasses.dataclass
class Metadata:
    """msnb implementation of ``Metadata``."""

    state_dict_metadata: dict
    planner_data: Any = None
    storage_data: Any = None

from .._missing_names import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributed.checkpoint.metadata", ("MetadataIndex", "TensorProperties",
                                                                         "StorageMeta"))
