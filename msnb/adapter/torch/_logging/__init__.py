"""msnb's ``torch._logging``: ``set_logs`` with PyTorch's arguments.

Level arguments (``dynamo=logging.INFO``, ``all=...``) set the levels of
Python's ``torch.*`` loggers as PyTorch does; artifact switches
(``graph_breaks=True``, ``recompiles=True``, ...) are remembered, but msnb
has no TorchDynamo/Inductor emitting those records (msnb graph mode reports
its own fallbacks whatever the setting)."""

from __future__ import annotations

import logging

__all__ = ["set_logs"]

#: level arguments -> the Python loggers they set
_LOGGERS = {"dynamo": "torch._dynamo", "aot": "torch._functorch.aot_autograd", "autograd": "torch.autograd",
            "dynamic": "torch.fx.experimental.symbolic_shapes", "inductor": "torch._inductor",
            "distributed": "torch.distributed", "c10d": "torch.distributed.distributed_c10d",
            "ddp": "torch.nn.parallel.distributed", "fsdp": "torch.distributed.fsdp", "dtensor":
            "torch.distributed._tensor", "onnx": "torch.onnx", "export": "torch.export"}
_ARTIFACT_NAMES = (
    "bytecode", "aot_graphs", "aot_joint_graph", "ddp_graphs", "graph", "graph_code", "graph_code_verbose",
    "graph_breaks", "side_effects", "graph_sizes", "guards", "recompiles", "recompiles_verbose", "trace_source",
    "trace_call", "trace_bytecode", "output_code", "kernel_code", "schedule", "perf_hints", "pre_grad_graphs",
    "post_grad_graphs", "ir_pre_fusion", "ir_post_fusion", "onnx_diagnostics", "fusion", "overlap", "modules",
    "cudagraphs", "sym_node", "compiled_autograd", "compiled_autograd_verbose", "cudagraph_static_inputs",
    "benchmarking", "autotuning", "incremental", "graph_region_expansion", "inductor_metrics",
    "hierarchical_compile", "compute_dependencies", "caching")
#: the artifact switches last set
ARTIFACTS: dict = {}


def set_logs(**kwargs):
    """msnb implementation of ``torch._logging.set_logs``."""
    for k in kwargs:
        if k != "all" and k not in _LOGGERS and k not in _ARTIFACT_NAMES:
            raise TypeError(f"set_logs() got an unexpected keyword argument '{k}'")
    ARTIFACTS.clear()
    logging.getLogger("torch").setLevel(logging.WARNING)
    for name in _LOGGERS.values():
        logging.getLogger(name).setLevel(logging.NOTSET)
    level_all = kwargs.get("all")
    if level_all is not None:
        logging.getLogger("torch").setLevel(level_all)
    for k, v in kwargs.items():
        if k in _LOGGERS and v is not None:
            if not isinstance(v, int):
                raise ValueError(f"Unrecognized log level for log {k}: {v}, valid level values are: "
                                 "[0, 10, 20, 30, 40, 50]")
            logging.getLogger(_LOGGERS[k]).setLevel(v)
        elif k in _ARTIFACT_NAMES:
            if not isinstance(v, bool):
                raise ValueError(f"Expected bool to enable artifact {k}, received {v}")
            ARTIFACTS[k] = v


from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch._logging")
