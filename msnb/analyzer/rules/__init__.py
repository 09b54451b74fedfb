"""All analyzer rules, one per file, and the code-range policy.

Codes are stable: a code is never reused for a different check, and a rule
that is removed leaves its code retired.  Ranges:

* ``MSN0xx`` - engine findings, not rules: ``MSN000`` the cell does not
  parse, ``MSN001`` an internal analyzer error.
* ``MSN1xx`` - devices: CUDA calls, device strings, cudnn / accelerator.
* ``MSN2xx`` - in-place updates and views (mode dependent: Graph mode has
  no in-place or aliasing semantics).
* ``MSN3xx`` - formatting and interop: tensors in format strings, tensors
  handed to NumPy / OpenCV / matplotlib.
* ``MSN4xx`` - API support and deprecation: names the adapter's support
  registry lacks, names PyTorch deprecated.
* ``MSN5xx`` - Graph mode and autograd: what changes when msnb's graph mode
  records ``forward`` and replays it (host reads and random draws that make
  a module run in PyNative, Python side effects that stop after the
  recorded calls), syntax MindSpore's ``@ms.jit`` compiler cannot capture,
  custom ``autograd.Function``.
* ``MSN6xx`` - distributed, checkpoints, names colliding with MindSpore.
* ``MSN9xx`` - noisy rules, **off by default**; enable them with
  ``analyze(..., rules=[...])``.

Within a range, the second digit groups related rules (``MSN20x`` in-place,
``MSN21x`` views).  Adding a rule: new file ``msnNNN_<name>.py`` with one
``Rule`` subclass, append it to ``ALL_RULES``, regenerate ``docs/rules.md``.
"""

from __future__ import annotations

from .base import Invalid, Rule, Valid
from .msn101_cuda_calls import CudaCalls
from .msn102_torch_cuda_api import TorchCudaApi
from .msn103_cuda_device_literal import CudaDeviceLiteral
from .msn104_cudnn_backends import CudnnBackends
from .msn105_accelerator import Accelerator
from .msn201_inplace_method import InplaceMethod
from .msn202_inplace_on_slice import InplaceOnSlice
from .msn203_out_argument import OutArgument
from .msn204_augmented_assignment import AugmentedAssignment
from .msn211_view_write import ViewWrite
from .msn301_tensor_format_spec import TensorFormatSpec
from .msn311_numpy_interop import NumpyInterop
from .msn401_unsupported_api import UnsupportedApi
from .msn402_deprecated_api import DeprecatedApi
from .msn501_graph_control_flow import GraphControlFlow
from .msn502_graph_host_sync import GraphHostSync
from .msn503_graph_unsupported_syntax import GraphUnsupportedSyntax
from .msn504_graph_random_in_forward import GraphRandomInForward
from .msn511_autograd_function import AutogradFunction
from .msn601_distributed import Distributed
from .msn611_torch_load_weights_only import TorchLoadWeightsOnly
from .msn612_pickled_model import PickledModel
from .msn621_cell_name_conflict import CellNameConflict
from .msn901_cell_attribute_shadowing import CellAttributeShadowing

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Rule", "Valid", "Invalid"]

ALL_RULES: list[type[Rule]] = [
    CudaCalls, TorchCudaApi, CudaDeviceLiteral, CudnnBackends, Accelerator,
    InplaceMethod, InplaceOnSlice, OutArgument, AugmentedAssignment, ViewWrite,
    TensorFormatSpec, NumpyInterop,
    UnsupportedApi, DeprecatedApi,
    GraphControlFlow, GraphHostSync, GraphUnsupportedSyntax, GraphRandomInForward, AutogradFunction,
    Distributed, TorchLoadWeightsOnly, PickledModel, CellNameConflict,
    CellAttributeShadowing,
]

RULES_BY_CODE: dict[str, type[Rule]] = {r.CODE: r for r in ALL_RULES}
