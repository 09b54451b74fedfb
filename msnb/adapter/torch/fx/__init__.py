"""msnb implementation of ``torch.fx``: symbolic tracing, the graph IR,
generated ``forward`` code, interpreters and graph rewriting, on msnb's
modules and tensors.

``symbolic_trace(module)`` returns a :class:`GraphModule` whose graph lists
the calls ``forward`` makes (``torch.nn`` modules as ``call_module`` leaves,
``torch.*`` functions and operators as ``call_function``, tensor methods as
``call_method``, parameters and buffers as ``get_attr``); editing the graph and
calling ``recompile()`` changes the code the module runs.  See docs/fx.md.
"""

from .._missing import module_getattr
from . import node, graph, proxy, graph_module, _symbolic_trace, interpreter, subgraph_rewriter, passes
from .node import Node, map_arg, map_aggregate, has_side_effect
from .graph import Graph, CodeGen, PythonCode
from .proxy import Proxy, TracerBase, GraphAppendingTracer, TraceError
from .graph_module import GraphModule
from ._symbolic_trace import Tracer, symbolic_trace, wrap, PH
from .interpreter import Interpreter, Transformer
from .subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "PH", "Graph", "GraphModule", "Node", "Proxy", "Interpreter",
           "Transformer", "map_arg", "replace_pattern", "has_side_effect", "CodeGen", "PythonCode"]

__getattr__ = module_getattr("torch.fx")
