"""PyTorch 2.13's public names of the RPC namespaces that msnb does not implement.

``_api_names`` (generated) does not list these namespaces, so each module's
``__getattr__`` comes from :func:`module_getattr_with`: these names raise msnb's
"not supported by msnb yet" error; any other missing name behaves as in the
other adapter modules."""

from __future__ import annotations

from ..._missing import NotSupportedError, module_getattr, not_supported_message

__all__ = ["PYTORCH_ONLY", "module_getattr_with"]

#: per namespace: PyTorch's public names that msnb lacks (``dir()`` / ``__all__`` of torch 2.13)
PYTORCH_ONLY = {
    "torch.distributed.rpc": ("AllGatherStates", "backend_registered", "construct_rpc_backend_options",
                              "init_backend", "method_factory", "new_method", "register_backend", "PyRRef",
                              "RpcAgent", "TensorPipeAgent", "RemoteProfilerManager", "enable_gil_profiling"),
    "torch.distributed.optim": ("PostLocalSGDOptimizer", "ZeroRedundancyOptimizer", "as_functional_optim"),
    "torch.distributed.nn": ("Function", "all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast",
                             "gather", "reduce", "reduce_scatter", "scatter"),
}


def module_getattr_with(namespace: str):
    """A module ``__getattr__`` for ``namespace`` that names PyTorch's missing names."""
    fallback = module_getattr(namespace)
    missing = frozenset(PYTORCH_ONLY.get(namespace, ()))

    def __getattr__(name):
        if name in missing:
            raise NotSupportedError(not_supported_message(f"{namespace}.{name}"))
        return fallback(name)

    return __getattr__
