"""msnb implementation of ``torch.fx.passes.shape_prop``: run a GraphModule on
example inputs and record each node's tensor shape, dtype and strides in
``node.meta['tensor_meta']`` (and the value's type in ``node.meta['type']``)."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._missing import module_getattr
from ..interpreter import Interpreter
from ..node import Node, map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records about one tensor (PyTorch's fields)."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result) -> TensorMetadata:
    from ... import contiguous_format
    return TensorMetadata(result.shape, result.dtype, bool(result.requires_grad), tuple(result.stride()),
                          contiguous_format, False, {})


class ShapeProp(Interpreter):
    """Interpreter that stores every node's ``tensor_meta`` while running the graph."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        if fake_mode is not None:
            raise NotImplementedError("ShapeProp(fake_mode=...) is not supported by msnb yet (see the support "
                                      "list: python -m msnb.adapter.support --markdown)")

    def run_node(self, n: Node) -> Any:
        from ... import Tensor
        result = super().run_node(n)
        found = False

        def extract(obj):
            nonlocal found
            if isinstance(obj, Tensor):
                found = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run the module on ``args`` (recording shapes); returns its result."""
        return super().run(*args)


__getattr__ = module_getattr("torch.fx.passes.shape_prop")
