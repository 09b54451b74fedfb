"""The support registry: every torch / torchvision name msnb implements.

The registry is data (``support.json`` beside this file), so that readers such
as the cell analyzer can load it without importing MindSpore.  It is generated
from the adapter itself (``python -m msnb.adapter.support --write``) and a test
checks the committed file matches what the adapter really exposes.

Entry status is ``supported`` or ``partial``; a partial entry carries a note
that says what differs.  A supported entry may carry a note that says how it is
computed where that is not MindSpore's own kernel (``COMPUTED_NOTES``).  A name
absent from the registry is not supported.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Entry", "load_registry", "is_supported", "build_registry", "to_markdown", "main", "REGISTRY_PATH",
           "SUPPORT_LIST_URL", "NAMESPACES", "PARTIAL", "COMPUTED_NOTES", "LINALG_SPECIAL_NOTES", "OPINFO_RESULTS_PATH",
           "EXTRA_NAMES",
           "load_opinfo_results", "opinfo_lines"]

REGISTRY_PATH = Path(__file__).with_name("support.json")
#: per-name OpInfo replay results, written by ``tools/opinfo_report.py --write``
OPINFO_RESULTS_PATH = Path(__file__).with_name("opinfo_results.json")
#: Where users are pointed when something is missing.
SUPPORT_LIST_URL = "docs/support.md (or: python -m msnb.adapter.support --markdown)"


@dataclass(frozen=True)
class Entry:
    """One supported API name, e.g. ``torch.nn.Conv2d`` or ``torch.Tensor.add_``."""

    name: str
    status: str  # "supported" | "partial"
    note: str = ""
    opinfo: str = ""  # "passing/replayed" OpInfo samples, when PyTorch's OpInfo covers the name


@functools.lru_cache(maxsize=1)
def load_registry() -> dict[str, Entry]:
    """Read the committed registry; cheap, no MindSpore import."""
    raw = json.loads(REGISTRY_PATH.read_text(encoding="utf-8"))
    return {
        name: Entry(name, info.get("status", "supported"), info.get("note", ""), info.get("opinfo", ""))
        for name, info in raw["entries"].items()
    }


def is_supported(qualname: str) -> bool:
    """True when ``qualname`` (``torch.x.y`` form) is listed."""
    return qualname in load_registry()


# --- building the registry from the adapter itself ------------------------------------

#: Adapter namespaces and the public torch / torchvision module each stands for.
NAMESPACES = {
    "torch": "msnb.adapter.torch",
    "torch.nn": "msnb.adapter.torch.nn",
    "torch.nn.functional": "msnb.adapter.torch.nn.functional",
    "torch.nn.init": "msnb.adapter.torch.nn.init",
    "torch.nn.utils": "msnb.adapter.torch.nn.utils",
    "torch.nn.parallel": "msnb.adapter.torch.nn.parallel",
    "torch.distributed": "msnb.adapter.torch.distributed",
    "torch.jit": "msnb.adapter.torch.jit",
    "torch.sparse": "msnb.adapter.torch.sparse",
    "torch.distributions": "msnb.adapter.torch.distributions",
    "torch.onnx": "msnb.adapter.torch.onnx",
    "torch.optim": "msnb.adapter.torch.optim",
    "torch.optim.lr_scheduler": "msnb.adapter.torch.optim.lr_scheduler",
    "torch.autograd": "msnb.adapter.torch.autograd",
    "torch.cuda": "msnb.adapter.torch.cuda",
    "torch.cuda.amp": "msnb.adapter.torch.cuda.amp",
    "torch.amp": "msnb.adapter.torch.amp",
    "torch.accelerator": "msnb.adapter.torch.accelerator",
    "torch.linalg": "msnb.adapter.torch.linalg",
    "torch.fft": "msnb.adapter.torch.fft",
    "torch.special": "msnb.adapter.torch.special",
    "torch.masked": "msnb.adapter.torch.masked",
    "torch.signal.windows": "msnb.adapter.torch.signal.windows",
    "torch.nn.utils.rnn": "msnb.adapter.torch.nn.utils.rnn",
    "torch.nn.utils.parametrize": "msnb.adapter.torch.nn.utils.parametrize",
    "torch.utils.data": "msnb.adapter.torch.utils.data",
    "torch.utils.data.distributed": "msnb.adapter.torch.utils.data.distributed",
    "torch.func": "msnb.adapter.torch.func",
    "torch.autograd.functional": "msnb.adapter.torch.autograd.functional",
    "torch.autograd.forward_ad": "msnb.adapter.torch.autograd.forward_ad",
    "torch.autograd.profiler": "msnb.adapter.torch.autograd.profiler",
    "torch.profiler": "msnb.adapter.torch.profiler",
    "torch.utils.benchmark": "msnb.adapter.torch.utils.benchmark",
    "torch.testing": "msnb.adapter.torch.testing",
    "torch.compiler": "msnb.adapter.torch.compiler",
    "torch.library": "msnb.adapter.torch.library",
    "torch.functional": "msnb.adapter.torch.functional",
    "torch._dynamo": "msnb.adapter.torch._dynamo",
    "torch._logging": "msnb.adapter.torch._logging",
    "torch.fx": "msnb.adapter.torch.fx",
    "torch.fx.node": "msnb.adapter.torch.fx.node",
    "torch.fx.graph": "msnb.adapter.torch.fx.graph",
    "torch.fx.proxy": "msnb.adapter.torch.fx.proxy",
    "torch.fx.graph_module": "msnb.adapter.torch.fx.graph_module",
    "torch.fx.interpreter": "msnb.adapter.torch.fx.interpreter",
    "torch.fx.subgraph_rewriter": "msnb.adapter.torch.fx.subgraph_rewriter",
    "torch.fx.passes.shape_prop": "msnb.adapter.torch.fx.passes.shape_prop",
    "torchvision": "msnb.adapter.torchvision",
    "torchvision.transforms": "msnb.adapter.torchvision.transforms",
    "torchvision.transforms.functional": "msnb.adapter.torchvision.transforms.functional",
    "torchvision.datasets": "msnb.adapter.torchvision.datasets",
    "torchvision.models": "msnb.adapter.torchvision.models",
    "torchvision.utils": "msnb.adapter.torchvision.utils",
    "torchvision.io": "msnb.adapter.torchvision.io",
    "torchvision.ops": "msnb.adapter.torchvision.ops",
}

#: registry names _public_names cannot see (private-looking names PyTorch users call, enum members)
EXTRA_NAMES = ("torch.__version__", "torch.channels_last", "torch.channels_last_3d", "torch.contiguous_format",
               "torch.preserve_format", "torch._check", "torch._check_index", "torch._check_value",
               "torch._check_type", "torch._check_not_implemented", "torch._check_with", "torch._check_is_size",
               "torch._check_tensor_all", "torch._check_tensor_all_with", "torch.ops",
               *(f"torch.profiler.ProfilerActivity.{a}" for a in ("CPU", "CUDA")),
               *(f"torch.profiler.ProfilerAction.{a}" for a in ("NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE")))

_HOST = "computed on the host (numpy/scipy LAPACK): "
_NO_KERNEL = "computed on the host (scipy): MindSpore 2.10 has no CPU kernel"
_REAL = "; real floating dtypes only (complex input raises)"
_COPY = "returns a copy, not a view: in-place writes to it do not reach the base"
_SPARSE = ("sparse COO only (CSR/CSC/BSR/BSC raise msnb's unsupported error): indices and values are adapter "
           "tensors, products with a dense operand run MindSpore's gather and index-add kernels (gradients to the "
           "dense operand and to values), coalesce and to_sparse order the indices on the host (numpy); "
           "MindSpore's COOTensor is not used; isinstance(t, torch.Tensor) is False for a sparse tensor; indices are "
           "always range-checked; ops msnb has no sparse version of raise msnb's unsupported error")
#: Notes of torch.linalg / torch.special names (how each is computed, what differs).
LINALG_SPECIAL_NOTES = {
    **{f"torch.linalg.{n}": _HOST + "MindSpore 2.10's CPU MatrixInverse returns finite numbers for a singular "
       "matrix instead of raising LinAlgError" + _REAL for n in ("inv", "inv_ex", "solve", "solve_ex",
                                                               "tensorinv", "tensorsolve")},
    "torch.inverse": _HOST + "MindSpore 2.10's CPU MatrixInverse does not detect singular matrices" + _REAL,
    "torch.Tensor.inverse": _HOST + "MindSpore 2.10's CPU MatrixInverse does not detect singular matrices" + _REAL,
    **{n: _HOST + "MindSpore 2.10's CPU Cholesky does not report the failing leading minor" + _REAL
       for n in ("torch.linalg.cholesky", "torch.linalg.cholesky_ex", "torch.cholesky", "torch.Tensor.cholesky")},
    **{n: _HOST + "MindSpore 2.10's CPU Svd picks other singular-vector signs than LAPACK; signs may still "
       "differ from PyTorch's MKL build (both are valid SVDs)" + _REAL
       for n in ("torch.linalg.svd", "torch.svd", "torch.Tensor.svd")},
    **{n: _HOST + "through the SVD (MindSpore 2.10's Svd, see torch.linalg.svd)" + _REAL
       for n in ("torch.linalg.svdvals", "torch.linalg.pinv", "torch.pinverse", "torch.Tensor.pinverse",
                 "torch.linalg.matrix_rank", "torch.linalg.cond", "torch.linalg.lstsq")},
    "torch.linalg.lstsq": _HOST + "the minimum-norm solution pinv(A) @ B, as PyTorch's default driver gelsy "
                          "gives for the rank it determines" + _REAL,
    **{f"torch.linalg.{n}": _HOST + "MindSpore 2.10 has no CPU eigh kernel; eigenvector signs may differ from "
       "PyTorch's MKL build" + _REAL for n in ("eigh", "eigvalsh")},
    "torch.linalg.eigvals": _HOST + "MindSpore's CPU Eig kernel is not used (its eigenvector gradient is "
                            "needed); the gradient is computed on the host too" + _REAL,
    "torch.linalg.solve_triangular": _HOST + "MindSpore 2.10 has no CPU triangular-solve kernel" + _REAL,
    **{f"torch.linalg.{n}": _HOST + "LAPACK ?sytrf / ?sytrs (PyTorch's pivots and layout): MindSpore 2.10 has no "
       "LDL kernel; no gradient (PyTorch has none either; its results require grad, msnb's do not)" + _REAL
       for n in ("ldl_factor", "ldl_factor_ex", "ldl_solve")},
    **{n: "computed on the host (scipy expm): MindSpore 2.10 has no CPU MatrixExp kernel" + _REAL
       for n in ("torch.linalg.matrix_exp", "torch.matrix_exp", "torch.Tensor.matrix_exp")},
    **{n: "MindSpore's CPU kernel; the gradient (cofactor matrix) is computed on the host through the SVD" + _REAL
       for n in ("torch.linalg.det", "torch.det", "torch.Tensor.det")},
    **{n: "MindSpore's CPU kernel" + _REAL for n in (
        "torch.linalg.slogdet", "torch.slogdet", "torch.Tensor.slogdet", "torch.logdet", "torch.Tensor.logdet",
        "torch.linalg.qr", "torch.qr", "torch.Tensor.qr")},
    **{n: _COPY for n in ("torch.linalg.diagonal", "torch.diagonal", "torch.Tensor.diagonal", "torch.real",
                          "torch.imag", "torch.view_as_real", "torch.view_as_complex", "torch.Tensor.real",
                          "torch.Tensor.imag")},
    "torch.diag_embed": "offset=0 and the last two dims only",
    "torch.Tensor.diag_embed": "offset=0 and the last two dims only",
    **{n: "computed on the host (scipy): MindSpore 2.10's CPU erfinv is off by up to 0.33 near +-1"
       for n in ("torch.special.erfinv", "torch.erfinv", "torch.Tensor.erfinv")},
    **{n: "computed on the host (scipy): MindSpore 2.10's CPU digamma is off by up to 0.58 for negative x"
       for n in ("torch.special.digamma", "torch.special.psi", "torch.digamma", "torch.Tensor.digamma",
                 "torch.special.polygamma", "torch.polygamma", "torch.Tensor.polygamma")},
    **{f"torch.special.{n}": _NO_KERNEL for n in (
        "erfcx", "log_ndtr", "ndtri", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
        "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
        "gammainc", "gammaincc")},
    **{f"torch.special.{p}{k}_polynomial_{s}": "computed on the host (numpy, PyTorch's recurrences): MindSpore "
       "2.10 has no kernel" for p, k, ss in (
        ("", "chebyshev", "tuvw"), ("shifted_", "chebyshev", "tuvw"), ("", "hermite", ("h", "he")),
        ("", "laguerre", "l"), ("", "legendre", "p")) for s in ss},
    **{f"torch.signal.windows.{w}": "computed on the host (numpy, float64) and rounded to the dtype" for w in (
        "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
        "hamming", "hann", "kaiser", "nuttall")},
}

_POSITIONS = ("positions found on the host (numpy): MindSpore 2.10's CPU kernels do not follow PyTorch's tie / "
              "NaN rules; values are gathered on the device, so gradients flow")
_COUNTS = "computed on the host (numpy); no gradient, as in PyTorch"


def _both(names, note):
    return {f"{ns}.{n}": note for n in names for ns in ("torch", "torch.Tensor")}


#: Notes of torch.* / Tensor.* ops computed (in part) on the host, or returning a copy for a view.
OPS_NOTES = {
    **_both(("cummax", "cummin", "kthvalue", "mode", "nanmedian", "quantile", "nanquantile", "msort"), _POSITIONS),
    **_both(("histc", "histogram", "unique_consecutive", "nonzero_static", "argwhere"), _COUNTS),
    **{f"torch.{n}": _COUNTS for n in ("histogramdd", "bucketize", "searchsorted", "isin")},
    "torch.combinations": "the index tuples are listed on the host (itertools); values are gathered, so gradients "
                          "flow",
    **_both(("frexp",), "exponents found on the host (numpy); the mantissa is differentiable"),
    **_both(("geqrf",), "computed on the host (LAPACK geqrf, as PyTorch); no gradient, as in PyTorch"),
    **_both(("as_strided",), _COPY + "; strides index the input's contiguous elements"),
    "torch.Tensor.unfold": _COPY,
    "torch.as_strided_copy": "strides index the input's contiguous elements",
    **{n: "contiguous and zero-filled (msnb tensors have one layout)" for n in (
        "torch.empty_strided", "torch.Tensor.new_empty_strided", "torch.empty_permuted")},
    "torch.gradient": "uniform spacing only (a number, or one per dimension); coordinate tensors raise msnb's "
                      "unsupported error",
}
_DOUBLE_VJP = ("forward mode by the double-vjp construction over msnb's reverse-mode tape: an op whose backward msnb "
               "does not record differentiably raises msnb's unsupported error; a custom autograd.Function's tangent "
               "is its jvp (its outputs then carry no reverse-mode node)")
_VMAP = ("runs the function once per index of the mapped dimension and stacks the results (PyTorch's in_dims/"
         "out_dims/randomness checks and errors); .item() or Python control flow on a batched value runs per sample "
         "where PyTorch refuses it; an out_dims=None output must be the same for every sample; in-place writes to "
         "unbatched captured tensors are not refused")
_PROFILE = ("host-side timing of msnb's MindSpore kernel calls (events named msnb::<kernel>, not aten:: ops) and "
            "of record_function ranges; profile_memory counts the bytes of each kernel's outputs (frees are not "
            "tracked); device (CUDA/Ascend) activity is not recorded (CUDA warns as PyTorch CPU does); with_stack/"
            "with_flops/with_modules record nothing; export_stacks/export_memory_timeline raise msnb's unsupported "
            "error")
_LAYOUT = ("msnb tensors have one (row-major) layout: a memory format changes no value, and stride() / "
           "is_contiguous() describe that layout")
#: Notes of the torch.func / profiler / benchmark / testing / compiler names.
TOOLING_NOTES = {
    "torch.vmap": _VMAP, "torch.func.vmap": _VMAP,
    **{f"torch.func.{n}": _DOUBLE_VJP for n in ("jvp", "jacfwd", "hessian")},
    "torch.autograd.functional.jvp": _DOUBLE_VJP,
    **{f"torch.autograd.forward_ad.{n}": _DOUBLE_VJP + "; a dual tensor has requires_grad=True and prints no "
       "tangent; turning grad recording off inside dual_level (no_grad, BatchNorm's running-stat update) makes "
       "unpack_dual raise msnb's unsupported error" for n in ("dual_level", "make_dual", "unpack_dual",
                                                              "enter_dual_level", "exit_dual_level")},
    "torch.profiler.profile": _PROFILE, "torch.autograd.profiler.profile": _PROFILE,
    "torch.profiler.ProfilerActivity": "CPU is recorded; CUDA and the other kinds are accepted and not recorded",
    "torch.profiler.ProfilerActivity.CUDA": "accepted: warns 'CUDA is not available, disabling CUDA profiling' as "
                                            "PyTorch CPU-only does (on Ascend: device activity is not recorded)",
    "torch.utils.benchmark.Timer": "Python statements, real time.perf_counter measurements; language='c++' and "
                                   "collect_callgrind raise msnb's unsupported error; num_threads is recorded but "
                                   "not applied (msnb's torch.set_num_threads is ignored)",
    "torch.utils.benchmark.Compare": "colorize() marks only the fastest value of each column (or row)",
    "torch.testing.make_tensor": "noncontiguous=True and memory_format give a contiguous tensor (" + _LAYOUT[:33]
                                 + ")",
    "torch.compiler.set_stance": "'default' and 'force_eager' (or force_backend='eager'); 'eager_on_recompile' and "
                                 "'fail_on_recompile' raise msnb's unsupported error when a compiled module runs",
    "torch._logging.set_logs": "levels set Python's torch.* loggers as PyTorch does; msnb has no TorchDynamo/"
                               "Inductor to emit artifact logs (graph_breaks, recompiles, ...): msnb graph mode "
                               "reports its fallbacks whatever the setting",
    "torch.library.custom_op": "schema= raises msnb's unsupported error; the op checks Tensor/float/int/bool/str "
                               "argument types only",
    **{n: "kept, never run: msnb traces no fake tensors" for n in ("torch.library.register_fake",)},
    "torch.ops": "only operators made with torch.library.custom_op (torch.ops.aten... raise msnb's unsupported "
                 "error)",
    "torch.device": "every device name maps to the active MindSpore device; 'meta' (shape-only tensors) is refused "
                    "with msnb's unsupported error wherever it would make a tensor (factories, layer constructors, "
                    ".to, a torch.device('meta') block)",
    "torch.set_default_device": "every device name maps to the active MindSpore device (as .to('cuda') does); "
                                "'meta' raises msnb's unsupported error; get_default_device keeps reporting the "
                                "active device",
    **{f"torch.{n}": _LAYOUT for n in ("channels_last", "channels_last_3d", "contiguous_format", "preserve_format",
                                       "memory_format")},
    "torch.cuda.Event": "without an accelerator, making one raises PyTorch CPU-only's RuntimeError; on Ascend it "
                        "notes the host time after a device synchronize (not run on Ascend here)",
    "torch.cuda.mem_get_info": "on MindSpore's CPU device: the host's available and physical RAM (PyTorch CPU-only "
                               "raises: msnb runs CUDA-written code on the active device); on Ascend it raises "
                               "msnb's unsupported error (not measured)",
    "torch.accelerator.get_memory_info": "torch.cuda.mem_get_info's answer (the host's RAM on the CPU device)",
    **{f"torch.accelerator.{n}": "answers for the active MindSpore device as torch.cuda does (PyTorch CPU-only "
                                 "raises 'Cannot access accelerator device')"
       for n in ("current_device_idx", "set_device_idx", "device_index", "memory_allocated", "max_memory_allocated",
                 "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats", "empty_cache")},
}
_ORDER = ("the order is found on the host (numpy, replaying PyTorch's CPU order of equal elements: introsort, "
          "partial sort, nth_element; stable where PyTorch is); values are gathered, so gradients flow")
_WINDOWS = ("{dtypes}: computed from windows gathered by index tables and MindSpore's matmul / sum (exact for "
            "integers), as MindSpore 2.10's CPU {kernel} kernels do not take these dtypes")
#: How a supported name is computed where that is not MindSpore's own kernel for it: shown as the
#: name's note, but it does not make the name partial (nothing differs from PyTorch).
COMPUTED_NOTES = {
    **_both(("sort", "argsort", "topk"), _ORDER),
    **{f"torch.nn.functional.{n}": _WINDOWS.format(dtypes="int64", kernel="Conv2D") for n in ("conv1d", "conv2d")},
    "torch.nn.functional.conv3d": _WINDOWS.format(dtypes="int64 and float64", kernel="Conv3D"),
    **{f"torch.nn.functional.{n}": _WINDOWS.format(dtypes="int64 and float64", kernel="Conv2DTranspose / Conv3D")
       for n in ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")},
    **{f"torch.nn.functional.{n}": _WINDOWS.format(dtypes="int64 and float64 (their gradients)",
                                                  kernel="AvgPool / AvgPoolGrad")
       for n in ("avg_pool1d", "avg_pool2d")},
}
#: What differs from PyTorch where an API is implemented but not in full.
PARTIAL = {
    **TOOLING_NOTES,
    **LINALG_SPECIAL_NOTES,
    **OPS_NOTES,
    "torch.amp.autocast": "one state for every device_type; PyTorch's CUDA op lists for every device_type; "
                          "bfloat16 refused on CPU (no MindSpore kernels); cache_enabled has no effect",
    "torch.from_numpy": "shares a C-contiguous array's memory as PyTorch; a non-contiguous or read-only array is "
                        "copied, and views taken of the tensor see later writes to the array only after an "
                        "in-place op through msnb",
    "torch.Tensor.expand": "returns a copy, not a view: in-place writes to it do not reach the base",
    "torch.inference_mode": "tensors made inside are ordinary tensors afterwards",
    "torch.unique": "runs on the host (numpy); always sorted",
    "torch.bincount": "counts on the host (numpy)",
    **{n: _SPARSE for n in ("torch.sparse_coo_tensor", "torch.sparse.mm", "torch.sparse.sum", "torch.spmm",
                            "torch.Tensor.to_sparse", "torch.Tensor.to_sparse_coo", "torch.Tensor.coalesce",
                            "torch.Tensor.indices", "torch.Tensor.values", "torch.Tensor.to_dense")},
    "torch.Tensor.bincount": "counts on the host (numpy)",
    "torch.nonzero": "runs on the host (numpy)",
    "torch.einsum": "no '...' and no repeated index within one operand",
    "torch.Tensor.view": "view(dtype) reinterprets the bits on the host (a true view; no gradient, as PyTorch); "
                         "view(dtype) of a non-contiguous tensor with another element size raises msnb's "
                         "unsupported error",
    "torch.diag": "diagonal=0 only",
    "torch.scatter": "reduce='multiply' is not supported",
    "torch.nn.functional.embedding_bag": "max_norm is not supported",
    "torch.nn.utils.parametrize.register_parametrization": "a right_inverse returning several tensors is not "
                                                           "supported",
    "torch.nn.EmbeddingBag": "max_norm is not supported",
    "torch.nn.functional.interpolate": "antialias=True and mode='area' on 5-D input are not supported",
    "torch.nn.functional.multi_head_attention_forward": "static_k / static_v are not supported",
    "torch.nn.TransformerEncoder": "PyTorch's nested-tensor fast path is not emulated: in eval mode without grad, "
                                   "PyTorch returns 0 at src_key_padding_mask positions, msnb the computed values",
    "torch.autograd.Function": "backward of a custom Function is not itself differentiable (no double backward)",
    "torch.compile": "a module runs as compiled MindSpore graphs (msnb graph mode), said at its first call; "
                     "a function is returned unchanged; backend/mode/options are not used",
    "torch.jit.script": "a module runs as compiled MindSpore graphs (msnb graph mode); functions stay Python",
    "torch.jit.trace": "runs the example once; a module then runs as compiled MindSpore graphs (msnb graph "
                       "mode); functions stay Python",
    "torch.jit.trace_module": "runs the examples once; the module then runs as compiled MindSpore graphs",
    "torch.jit.ScriptModule": "no TorchScript: save, code and graph raise msnb's unsupported error",
    "torch.jit.RecursiveScriptModule": "no TorchScript: save, code and graph raise msnb's unsupported error",
    **{f"torch.jit.{n}": "raises msnb's unsupported error: msnb has no TorchScript"
       for n in ("save", "load", "freeze", "optimize_for_inference", "fork", "wait", "ScriptFunction")},
    **{f"torch.distributions.{n}": "samples are drawn with numpy's gamma sampler seeded from msnb's generator "
                                   "(not PyTorch's stream); rsample raises msnb's unsupported error"
       for n in ("Gamma", "Dirichlet", "Beta")},
    "torch.distributions.Distribution": "expand() raises msnb's unsupported error",
    "torch.onnx.export": "raises msnb's unsupported error (no ONNX exporter)",
    "torch.onnx.dynamo_export": "raises msnb's unsupported error (no ONNX exporter)",
    "torch.nn.DataParallel": "one device: runs the module on it; device_ids beyond [0] are refused",
    "torch.nn.parallel.DataParallel": "one device: runs the module on it; device_ids beyond [0] are refused",
    "torch.nn.parallel.data_parallel": "one device: runs the module on it",
    "torch.nn.parallel.DistributedDataParallel": "gradients are averaged in buckets after backward() ends "
                                                 "(not overlapped with it); register_comm_hook, join, "
                                                 "mixed_precision and device_mesh raise msnb's unsupported "
                                                 "error; with graph mode (torch.compile) the sync runs after "
                                                 "each backward too",
    **{f"torch.distributed.{n}": "async_op=True runs the collective before returning (wait() returns at once); "
                                 "on CPU only SUM of float16/float32 is MindSpore's AllReduce, other ops and "
                                 "dtypes gather every rank's tensor (AllGather) and reduce it locally"
       for n in ("all_reduce", "reduce", "reduce_scatter", "reduce_scatter_tensor")},
    "torch.distributed.init_process_group": "every backend name means MindSpore's communication for the device; "
                                            "more than one process needs MindSpore's launcher (msnb launch or "
                                            "msrun); init_method file:// and store= are not supported",
    **{f"torch.distributed.{n}": "objects travel as torch.save bytes read with torch.load(weights_only=True): "
                                 "arbitrary classes are refused"
       for n in ("broadcast_object_list", "all_gather_object", "gather_object")},
    "torch.distributed.gather": "every rank gathers (MindSpore's AllGather); dst keeps the result",
    "torch.distributed.scatter": "a Broadcast of the stacked list from src",
    "torch.distributed.Work": "already completed when returned",
    **{n: "torch functions see a Proxy while one is alive or a trace runs (msnb wraps its functions then, "
          "docs/fx.md); a function bound under two names (torch.arctan / torch.atan) prints under the first; "
          "torch.nn.functional C functions print as torch.nn.functional.<name> (PyTorch: torch._C._nn.<name>)"
       for n in ("torch.fx.symbolic_trace", "torch.fx.Tracer", "torch.fx.Proxy", "torch.fx.proxy.Proxy")},
    **{n: "pickling, to_folder and print_readable's per-node comments are not supported"
       for n in ("torch.fx.GraphModule", "torch.fx.graph_module.GraphModule")},
    **{n: "on_generate_code / set_codegen are not supported" for n in ("torch.fx.Graph", "torch.fx.graph.Graph")},
    **{n: "patterns returning one value only; get_attr nodes of the replacement are not copied"
       for n in ("torch.fx.replace_pattern", "torch.fx.subgraph_rewriter.replace_pattern")},
    "torch.fx.passes.shape_prop.ShapeProp": "fake_mode is not supported; memory_format is msnb's "
                                            "torch.contiguous_format constant",
    "torch.set_num_threads": "accepted and ignored",
    "torch.Tensor.data_ptr": "identifies the shared data of a tensor and its views, not a memory address",
    **{f"torchvision.models.{m}": "weights must be None (no pretrained downloads): load a local checkpoint "
                                  "with model.load_state_dict(torch.load(path))"
       for m in ("resnet18", "resnet34", "resnet50", "vgg11", "vgg11_bn", "vgg16", "vgg16_bn", "mobilenet_v2",
                 "alexnet", "squeezenet1_0", "squeezenet1_1")},
    # -- torch.linalg.eig, torchvision.io / ops, the other VGG depths (issue #15) --
    "torch.linalg.eig": _HOST + "LAPACK geev (PyTorch's eigenvalue order, unit-norm eigenvectors); MindSpore's "
                        "CPU Eig kernel is not used; the gradient is computed on the host too; eigenvector phases "
                        "may differ from PyTorch's MKL build (both valid)" + _REAL,
    **{f"torchvision.models.{m}": "weights must be None (no pretrained downloads): load a local checkpoint "
                                  "with model.load_state_dict(torch.load(path))"
       for m in ("vgg13", "vgg13_bn", "vgg19", "vgg19_bn")},
    **{f"torchvision.io.{n}": "decoded with Pillow: PNG and JPEG only (GIF, WebP, AVIF, HEIC raise); 16-bit PNG "
                              "raises (msnb has no uint16); a palette PNG read with an alpha mode is opaque"
       for n in ("decode_image", "read_image", "decode_png")},
    "torchvision.io.decode_jpeg": "decoded with Pillow's libjpeg; device must be 'cpu'",
    **{f"torchvision.io.{n}": "encoded with Pillow's JPEG encoder: the bytes may differ from torchvision's "
                              "libjpeg-turbo settings (the picture decodes the same within JPEG's loss)"
       for n in ("encode_jpeg", "write_jpeg")},
    **{f"torchvision.ops.{n}": "sampling positions and weights are computed on the host per RoI (Python loops: "
                               "slow for many RoIs or large adaptive grids), values gathered with msnb's ops; "
                               "gradients reach input only, as torchvision's"
       for n in ("roi_align", "roi_pool", "RoIAlign", "RoIPool")},
    # --- tvmodels: EfficientNet / ViT / ResNet-101+ and their weights ---
    **{f"torchvision.models.{m}": "pretrained weights load only from torchvision's local cache "
                                  "($TORCH_HOME/hub/checkpoints/<file>), never downloaded"
       for m in ("resnet101", "resnet152", "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
                 "wide_resnet50_2", "wide_resnet101_2", *[f"efficientnet_b{i}" for i in range(8)],
                 "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l", "vit_b_16", "vit_b_32", "vit_l_16",
                 "vit_l_32", "vit_h_14")},
    "torchvision.models.VisionTransformer": "conv_stem_configs is not supported",
    **{f"torchvision.models.{e}_Weights": "transforms() and meta['num_params'/'min_size'] as torchvision; "
                                          "meta['categories'] is not provided; files only from the local cache"
       for e in ("ResNet101", "ResNet152", "ResNeXt50_32X4D", "ResNeXt101_32X8D", "ResNeXt101_64X4D",
                 "Wide_ResNet50_2", "Wide_ResNet101_2", *[f"EfficientNet_B{i}" for i in range(8)],
                 "EfficientNet_V2_S", "EfficientNet_V2_M", "EfficientNet_V2_L", "ViT_B_16", "ViT_B_32", "ViT_L_16",
                 "ViT_L_32", "ViT_H_14")},
    # --- end tvmodels ---
}

# --- torchvision auto-augment (issue #15): policies, their image ops, the Random* colour transforms ---
NAMESPACES["torchvision.transforms.autoaugment"] = "msnb.adapter.torchvision.transforms.autoaugment"
_TV_HOST = ("computed on the host with numpy: PIL's ops for PIL images, torchvision's tensor formulas for tensors "
            "(uint8 equal to real torchvision's, tests/adapter/torchvision/test_tv_autoaugment.py)")
_TV_DRAWS = ("draws torchvision's torch.randint / torch.rand / Tensor.uniform_ calls in its order, so "
             "torch.manual_seed gives torchvision's choices; ops as torchvision.transforms.functional ("
             + _TV_HOST + ")")
COMPUTED_NOTES.update({
    **{f"torchvision.transforms.functional.{n}": _TV_HOST
       for n in ("posterize", "solarize", "equalize", "autocontrast", "adjust_sharpness", "invert")},
    **{f"torchvision.transforms.functional.{n}": "tensors: torchvision's inverse affine matrix, sampling grid and "
                                                 "grid_sample (nearest / bilinear, zero padding, fill as a mask "
                                                 "channel) with PyTorch's CPU fused multiply-adds; " + _TV_HOST
       for n in ("affine", "rotate")},
    **{f"torchvision.transforms.{n}": _TV_DRAWS
       for n in ("AutoAugment", "RandAugment", "TrivialAugmentWide", "RandomInvert", "RandomPosterize",
                 "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize", "RandomAffine")},
    **{f"torchvision.transforms.autoaugment.{n}": _TV_DRAWS
       for n in ("AutoAugment", "RandAugment", "TrivialAugmentWide")},
    **{f"torchvision.transforms{m}.AugMix": _TV_DRAWS + "; the Dirichlet mixing weights replay PyTorch's CPU "
                                            "gamma sampler on the default generator"
       for m in ("", ".autoaugment")},
})
# --- end torchvision auto-augment ---

# --- torch.multiprocessing, utils.tensorboard, backends.mps, nn.attention, sparse semi-structured,
# autograd.graph hooks, quantization (one block: NAMESPACES and notes of these names) ------------------
NAMESPACES.update({
    "torch.multiprocessing": "msnb.adapter.torch.multiprocessing",
    "torch.utils.tensorboard": "msnb.adapter.torch.utils.tensorboard",
    "torch.backends.mps": "msnb.adapter.torch.backends.mps",
    "torch.nn.attention": "msnb.adapter.torch.nn.attention",
    "torch.ao.quantization": "msnb.adapter.torch.ao.quantization",
    "torch.quantization": "msnb.adapter.torch.quantization",
})
EXTRA_NAMES = EXTRA_NAMES + tuple(f"torch.nn.attention.SDPBackend.{b}" for b in (
    "ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "OVERRIDEABLE")) + tuple(
    f"torch.autograd.graph.{n}" for n in ("saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"))
_MP_CHILD = ("children are fresh interpreters running torch on MindSpore (MindSpore cannot run in a forked "
             "child): 'fork' and 'forkserver' start processes as 'spawn' does, so targets must be picklable")
PARTIAL.update({
    **{f"torch.multiprocessing.{n}": _MP_CHILD for n in (
        "Process", "Pool", "Manager", "set_start_method", "spawn", "start_processes")},
    "torch.multiprocessing.get_context": _MP_CHILD + "; the context of 'fork' / 'forkserver' says 'spawn' from "
                                         "get_start_method() (how its processes, locks and queues work)",
    **{n: "PyTorch's CPU choice (FLASH_ATTENTION when its checks pass, else MATH) and its refusals; both "
          "kernels are msnb's one composition of MindSpore ops (values equal to PyTorch's to float rounding); "
          "set_priority does not change the CPU order (as in PyTorch); msnb tensors are always contiguous, so "
          "the flash kernel's last-dim stride check never refuses"
       for n in ("torch.nn.attention.sdpa_kernel",)},
    **{f"torch.sparse.{n}": "refuses every tensor with PyTorch CPU-only's RuntimeError (2:4 sparsity needs CUDA "
                            "kernels); on Ascend the same error type names the device"
       for n in ("to_sparse_semi_structured", "SparseSemiStructuredTensor", "SparseSemiStructuredTensorCUTLASS",
                 "SparseSemiStructuredTensorCUSPARSELT")},
    **{f"torch.autograd.graph.{n}": "the pack hook sees the tensors msnb's backward keeps: the ones PyTorch saves "
                                    "for elementwise ops (mul, div, pow, exp, tanh, ...), custom Functions and "
                                    "linear; other ops may pack other forms (mm packs self before other, 1-D "
                                    "matmul its 2-D views, linear its weight untransposed); the originals stay "
                                    "referenced by the graph (packing frees no memory); an op whose backward "
                                    "keeps a saved tensor out of hooks' reach raises msnb's unsupported error"
       for n in ("saved_tensors_hooks", "save_on_cpu")},
    "torch.quantize_per_tensor": "per-tensor affine on the host (numpy: PyTorch's x86 FBGEMM rounding, bit for "
                                 "bit); the result holds int_repr / dequantize / q_scale / q_zero_point / qscheme / "
                                 "shape but is not a torch.Tensor instance, and other Tensor methods on it raise "
                                 "msnb's unsupported error",
    **{f"{ns}.quantize_dynamic": "nn.Linear with dtype=torch.qint8 only, PyTorch's x86 (FBGEMM) engine numbers bit "
                                 "for bit (integer arithmetic emulated on the host with numpy); LSTM / GRU / RNN "
                                 "cells, float16 and mapping= raise msnb's unsupported error; outputs carry no "
                                 "grad_fn" for ns in ("torch.ao.quantization", "torch.quantization")},
    "torch.multiprocessing.set_sharing_strategy": "both of PyTorch's names are accepted; tensors are shared "
                                                  "through named shared-memory segments either way",
})


# --- torch.futures and torch.distributed.{rpc,autograd,optim,nn} (docs/rpc.md) ---------------
NAMESPACES.update({
    "torch.futures": "msnb.adapter.torch.futures",
    "torch.distributed.rpc": "msnb.adapter.torch.distributed.rpc",
    "torch.distributed.rpc.functions": "msnb.adapter.torch.distributed.rpc.functions",
    "torch.distributed.autograd": "msnb.adapter.torch.distributed.autograd",
    "torch.distributed.optim": "msnb.adapter.torch.distributed.optim",
    "torch.distributed.nn": "msnb.adapter.torch.distributed.nn",
})
_RPC_THREADS = ("one thread at a time runs torch code in a worker (MindSpore's runtime is not thread-safe): the "
                "callee's pool threads run while the caller's thread waits in an RPC, Future.wait or shutdown; ")
_RPC_WIRE = ("tensors travel as numpy copies through host memory (device_maps are not used); a function that returns "
             "a torch.futures.Future is answered when it completes, with or without functions.async_execution")
COMPUTED_NOTES.update({
    "torch.distributed.optim.DistributedOptimizer": "one local optimizer of the given torch.optim class per owner; "
                                                    "step(context_id) sets the parameters' .grad to the context's "
                                                    "gradients for that step and restores .grad after it",
})
PARTIAL.update({
    "torch.futures.Future": "then() returns a torch.futures.Future (PyTorch: a torch._C.Future); value() before "
                            "completion raises a RuntimeError that says to wait() (PyTorch: an internal assert)",
    "torch.distributed.rpc.init_rpc": "workers meet at MASTER_ADDR:MASTER_PORT (MASTER_PORT + 1 under msrun) or "
                                      "init_method tcp://host:port and talk over multiprocessing.connection, "
                                      "HMAC-authenticated with MSNB_RPC_AUTHKEY or a key derived from the rendezvous "
                                      "address; " + _RPC_THREADS + "backend is ignored",
    **{f"torch.distributed.rpc.{n}": _RPC_THREADS + _RPC_WIRE for n in ("rpc_sync", "rpc_async", "remote")},
    "torch.distributed.rpc.RRef": "the owner keeps every RRef's value until shutdown (no distributed reference "
                                  "counting); " + _RPC_WIRE,
    "torch.distributed.rpc.shutdown": "graceful: waits for this worker's outstanding RPCs, then for every worker "
                                      "(a barrier through rank 0); timeout is ignored",
    "torch.distributed.rpc.TensorPipeRpcBackendOptions": "num_worker_threads, rpc_timeout and init_method are used; "
                                                         "device_maps / devices are kept and not used; _transports / "
                                                         "_channels are ignored",
    **{f"torch.distributed.autograd.{n}": "each worker keeps its part of the graph until the context exits "
                                          "(retain_graph is always on); a worker that sent several tensors runs one "
                                          "backward per tensor sent (the gradients sum to PyTorch's)"
       for n in ("context", "backward")},
    "torch.distributed.nn.RemoteModule": "train()/eval() return self (PyTorch: a pickled copy of the remote "
                                         "module); the device part of remote_device is not used (CPU)",
})


# --- torch.export and torch.nested (msnb/adapter/torch/export, msnb/adapter/torch/nested; docs/export-nested.md) ---
NAMESPACES.update({"torch.export": "msnb.adapter.torch.export",
                   "torch.export.dynamic_shapes": "msnb.adapter.torch.export.dynamic_shapes",
                   "torch.export.graph_signature": "msnb.adapter.torch.export.graph_signature",
                   "torch.export.exported_program": "msnb.adapter.torch.export.exported_program",
                   "torch.nested": "msnb.adapter.torch.nested"})
# torch.export is a name of PyTorch's torch namespace: listed whether or not it was imported yet
EXTRA_NAMES += ("torch.jagged", "torch.strided", "torch.export",
                *(f"torch.export.{ns}Dim.{h}" for ns in ("", "dynamic_shapes.") for h in ("AUTO", "STATIC", "DYNAMIC")))
_NESTED = ("a nested tensor holds its components (msnb tensors) and computes component by component with msnb's "
           "kernels (elementwise ops, matmul, linear, softmax, dropout, layer_norm, scaled_dot_product_attention, "
           "reshape / transpose / unflatten / flatten, indexing by an int first index); other torch functions on "
           "it raise msnb's unsupported error; isinstance(nt, torch.Tensor) is False; values() of a jagged "
           "tensor is a copy (gradients flow back), not a view; while a nested tensor is alive msnb's torch "
           "functions run through the torch.fx wrappers (a check per call); log_softmax and scalar - nested on "
           "the strided layout raise PyTorch's NotImplementedError, as PyTorch has no kernel for them")
_EXPORT_TRACE = ("traced with msnb's torch.fx through every module on the example inputs: the graph is made of "
                 "msnb's torch functions and prints them (torch.nn.functional.linear, x + y), not PyTorch's ATen "
                 "operators (torch.ops.aten.linear.default); sizes read in Python are constants of the graph, and "
                 "a dimension marked dynamic is checked by re-running the graph with it resized against the module "
                 "itself (a dimension the graph cannot follow is static under Dim.AUTO, PyTorch's 'Constraints "
                 "violated' error otherwise; Dim.AUTO dimensions of equal size are also probed together, but "
                 "relations beyond equality (z's size = y0 * y1) are not found and those dimensions become "
                 "static where PyTorch keeps them dynamic); intermediate values print the example's sizes; "
                 "Python control flow on tensor data raises PyTorch's error types; torch.cond / map, "
                 "preserve_module_call_signature, forward(*args) and buffer writes made outside torch functions "
                 "(BatchNorm's num_batches_tracked in training) raise msnb's unsupported error")
_EXPORTED = ("module() checks the inputs' structure, static sizes, non-tensor inputs and Dim ranges with PyTorch's "
             "guard messages (not dtypes); run_decompositions() returns the same graph (msnb has no ATen layer to "
             "lower) and refuses a non-empty decomp_table; printing shows msnb's torch functions, not ATen ops")
PARTIAL.update({
    "torch.export.export": _EXPORT_TRACE,
    **{f"torch.export.{n}ExportedProgram": _EXPORTED for n in ("", "exported_program.")},
    **{f"torch.export.{n}default_decompositions": "an empty table: msnb has no ATen operators to decompose"
       for n in ("", "exported_program.")},
    **{f"torch.export.{n}": "msnb's own .pt2 zip (the graph as JSON naming msnb's torch functions, tensors "
                            "read with weights_only=True); loading a .pt2 written by PyTorch (an ATen graph) "
                            "raises msnb's unsupported error" for n in ("save", "load")},
    **{f"torch.export.{n}Dim": "derived dimensions (2 * dx, dx + 1) raise msnb's unsupported error"
       for n in ("", "dynamic_shapes.")},
    **{f"torch.nested.{n}": _NESTED for n in ("nested_tensor", "as_nested_tensor", "to_padded_tensor")},
})

# --- torch.distributed sharding: DeviceMesh, DTensor, tensor parallel, FSDP, checkpoint.state_dict ---
NAMESPACES.update({
    "torch.distributed.device_mesh": "msnb.adapter.torch.distributed.device_mesh",
    "torch.distributed.tensor": "msnb.adapter.torch.distributed.tensor",
    "torch.distributed.tensor.device_mesh": "msnb.adapter.torch.distributed.tensor.device_mesh",
    "torch.distributed.tensor.parallel": "msnb.adapter.torch.distributed.tensor.parallel",
    "torch.distributed._tensor": "msnb.adapter.torch.distributed._tensor",
    "torch.distributed._tensor.device_mesh": "msnb.adapter.torch.distributed._tensor.device_mesh",
    "torch.distributed.fsdp": "msnb.adapter.torch.distributed.fsdp",
    "torch.distributed.fsdp.fully_sharded_data_parallel":
        "msnb.adapter.torch.distributed.fsdp.fully_sharded_data_parallel",
    "torch.distributed.checkpoint.state_dict": "msnb.adapter.torch.distributed.checkpoint.state_dict",
})
_FSDP1 = ("torch.distributed.fsdp", "torch.distributed.fsdp.fully_sharded_data_parallel")
_DT = ("torch.distributed.tensor", "torch.distributed._tensor")
EXTRA_NAMES = EXTRA_NAMES + (
    *(f"{ns}.FullyShardedDataParallel.{m}" for ns in _FSDP1 for m in (
        "state_dict_type", "set_state_dict_type", "get_state_dict_type", "clip_grad_norm_")),
    *(f"{ns}.StateDictType.{t}" for ns in _FSDP1 for t in ("FULL_STATE_DICT", "LOCAL_STATE_DICT",
                                                            "SHARDED_STATE_DICT")),
    *(f"{ns}.ShardingStrategy.{t}" for ns in _FSDP1 for t in ("FULL_SHARD", "SHARD_GRAD_OP")),
    *(f"{ns}.DTensor.{m}" for ns in _DT for m in ("from_local", "to_local", "full_tensor", "redistribute")),
    *(f"{ns}.DeviceMesh.{m}" for ns in ("torch.distributed.device_mesh",) for m in (
        "get_group", "get_local_rank", "size", "get_coordinate")),
    "torch.distributed.fsdp.FSDPModule.reshard", "torch.distributed.fsdp.FSDPModule.unshard",
    "torch.distributed.fsdp.FSDPModule.set_requires_gradient_sync")
_SHARDED_PARAMS = ("sharded parameters are msnb Parameters holding this rank's piece: p.shape is the local shape "
                   "(PyTorch's DTensor parameter has the global one), isinstance(p, DTensor) is False; p.placements, "
                   "p.device_mesh, p.to_local() and p.full_tensor() are there as on a DTensor; optimizer state "
                   "(exp_avg, ...) is a plain tensor of the piece")
_FSDP_RUN = ("each rank keeps the dim-0 torch.chunk piece of every parameter; the pieces are all-gathered when the "
             "module's forward starts and the gradients summed over the mesh, averaged and cut to pieces in "
             "backward (MindSpore's AllGather/AllReduce on CPU), not overlapped with compute; ")
_DSD = ("keys are PyTorch's FQNs (DDP's module. and FSDP1's _fsdp_wrapped_module. dropped; optimizer state keyed "
        "by parameter name); without full_state_dict a sharded parameter's value is a DTensor of this rank's piece, "
        "its optimizer state (exp_avg, ...) a DTensor of the piece too, as PyTorch; a fresh optimizer gets its state first (one step on zero gradients at lr 0, as PyTorch); full_state_dict + cpu_offload gives rank 0 the values and the other ranks "
        "{}, as PyTorch; submodules= raises msnb's unsupported error")
_DTENSOR = ("not a torch.Tensor subclass (torch.save / pickling raises msnb's unsupported error): + - * / with a number or a DTensor of the same mesh, placements and "
            "shape, neg, pow, relu, sigmoid, tanh, exp, abs and to(dtype) run on the local pieces; every other op "
            "raises msnb's unsupported error naming it (torch.* functions do not take a DTensor); msnb has no "
            "sharding propagation rules beyond these")
PARTIAL.update({
    "torch.distributed.fsdp.fully_shard": _FSDP_RUN + _SHARDED_PARAMS + "; 1-D mesh only (HSDP raises); "
                                          "reshard_after_forward=False gives the same values (msnb always "
                                          "reshards); shard_placement_fn and FSDP over tensor-parallel parameters "
                                          "raise msnb's unsupported error; under torch.compile / graph mode the sharded modules run in PyNative (their hooks keep them there)",
    "torch.distributed.fsdp.FSDPModule": "state_dict() gives DTensors of the pieces and load_state_dict takes "
                                         "DTensors, whole tensors or pieces, as PyTorch; torch.save of that "
                                         "state dict raises msnb's unsupported error (save the full state dict); "
                                         "set_requires_gradient_sync(False) keeps the whole local gradients "
                                         "until the next synced backward; "
                                         "unshard() gathers at once; the prefetch setters are accepted and do "
                                         "nothing",
    "torch.distributed.fsdp.MixedPrecisionPolicy": "param_dtype, output_dtype and cast_forward_inputs apply; "
                                                   "gradients are reduced in the parameters' own dtype "
                                                   "(reduce_dtype is accepted, not used)",
    "torch.distributed.fsdp.CPUOffloadPolicy": "accepted: on CPU msnb's tensors are in host memory already",
    **{f"{ns}.{n}": v for ns in _FSDP1 for n, v in {
        "FullyShardedDataParallel": _FSDP_RUN + "per-parameter pieces (PyTorch's use_orig_params=True layout: no "
                                    "FlatParameter), " + _SHARDED_PARAMS + "; named_parameters() keeps the "
                                    "_fsdp_wrapped_module. prefix; FULL_SHARD and SHARD_GRAD_OP only (the other "
                                    "strategies, hybrid groups, ignored_modules and param_init_fn raise msnb's "
                                    "unsupported error); auto_wrap_policy is accepted and makes one unit; "
                                    "summon_full_params raises",
        "FullyShardedDataParallel.state_dict_type": "FULL_STATE_DICT gathers every parameter (rank0_only=True: "
                                                    "the other ranks get {}); SHARDED_STATE_DICT gives DTensors of "
                                                    "this rank's pieces (PyTorch: ShardedTensor), LOCAL_STATE_DICT "
                                                    "the pieces keyed by parameter as plain tensors (PyTorch: one "
                                                    "flat shard under _flat_param)",
        "FullyShardedDataParallel.set_state_dict_type": "see FullyShardedDataParallel.state_dict_type",
        "StateDictType.LOCAL_STATE_DICT": "this rank's pieces keyed by parameter as plain tensors (PyTorch: one "
                                          "flat shard under _flat_param)",
        "StateDictType.SHARDED_STATE_DICT": "DTensors of this rank's pieces (PyTorch: ShardedTensor)",
        "MixedPrecision": "param_dtype and the input casts apply, buffer_dtype casts the buffers once; gradients "
                          "are reduced in the parameters' own dtype; keep_low_precision_grads is not applied",
        "CPUOffload": "accepted: on CPU msnb's tensors are in host memory already",
        "ShardingStrategy": "FULL_SHARD and SHARD_GRAD_OP run (the same values); the others raise when used",
        "BackwardPrefetch": "accepted; msnb does not prefetch",
    }.items()},
    **{f"{ns}.{n}": v for ns in ("torch.distributed.device_mesh", "torch.distributed.tensor.device_mesh",
                                 "torch.distributed._tensor", "torch.distributed._tensor.device_mesh")
       for n, v in {"DeviceMesh": "one group per mesh dimension over the launched ranks; slicing by several "
                                  "dimensions (mesh['dp', 'tp']) raises msnb's unsupported error; backend_override "
                                  "is ignored",
                    "init_device_mesh": "the mesh covers the whole world, ranks in row-major order"}.items()},
    **{f"{ns}.{n}": v for ns in _DT for n, v in {
        "DTensor": _DTENSOR,
        "distribute_tensor": "rank src_data_rank's values reach every rank (one Broadcast per mesh dimension); "
                             "Partial placements and one tensor dimension sharded over two mesh dimensions raise "
                             "msnb's unsupported error",
        "Partial": "reduce_op 'sum' and 'avg' only; Partial -> Replicate/Shard redistribution",
        "empty": "zero-filled",
    }.items()},
    "torch.distributed.tensor.parallel.ColwiseParallel": "nn.Linear and nn.Embedding; " + _SHARDED_PARAMS,
    "torch.distributed.tensor.parallel.RowwiseParallel": "nn.Linear only (nn.Embedding raises msnb's "
                                                         "unsupported error); " + _SHARDED_PARAMS,
    "torch.distributed.tensor.parallel.SequenceParallel": "nn.LayerNorm, nn.Dropout and modules without "
                                                          "parameters (others raise msnb's unsupported error)",
    "torch.distributed.tensor.parallel.parallelize_module": "a 1-D mesh; plan keys may use fnmatch '*' patterns; "
                                                            "under torch.compile / graph mode the sharded modules run in PyNative (their hooks keep them there)",
    **{f"torch.distributed.checkpoint.state_dict.{n}": _DSD for n in (
        "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict", "set_model_state_dict",
        "set_optimizer_state_dict", "set_state_dict")},
    "torch.distributed.get_default_backend_for_device": "PyTorch 2.13's answers for device names (cpu/mps: gloo, "
                                                        "cuda: nccl, xpu: xccl, others ValueError); an integer index "
                                                        "means msnb's device, as torch.device(0) does here (nccl), "
                                                        "where CPU-only PyTorch raises RuntimeError",
    "torch.distributed.checkpoint.state_dict.StateDictOptions": "full_state_dict, cpu_offload, "
                                                                "ignore_frozen_params, strict and "
                                                                "broadcast_from_rank0 apply; "
                                                                "flatten_optimizer_state_dict and "
                                                                "keep_submodule_prefixes are ignored",
})

# --- torch.distributed.checkpoint save / load, PrepareModuleInput / PrepareModuleOutput (docs/fsdp-tensor-parallel.md) ---
NAMESPACES.update({
    "torch.distributed.checkpoint": "msnb.adapter.torch.distributed.checkpoint",
    "torch.distributed.checkpoint.api": "msnb.adapter.torch.distributed.checkpoint.api",
    "torch.distributed.checkpoint.default_planner": "msnb.adapter.torch.distributed.checkpoint.default_planner",
    "torch.distributed.checkpoint.filesystem": "msnb.adapter.torch.distributed.checkpoint.filesystem",
    "torch.distributed.checkpoint.metadata": "msnb.adapter.torch.distributed.checkpoint.metadata",
    "torch.distributed.checkpoint.state_dict_loader": "msnb.adapter.torch.distributed.checkpoint.state_dict_loader",
    "torch.distributed.checkpoint.state_dict_saver": "msnb.adapter.torch.distributed.checkpoint.state_dict_saver",
    "torch.distributed.checkpoint.stateful": "msnb.adapter.torch.distributed.checkpoint.stateful",
    "torch.distributed.fsdp.wrap": "msnb.adapter.torch.distributed.fsdp.wrap",
    "torch.distributed.algorithms._checkpoint.checkpoint_wrapper":
        "msnb.adapter.torch.distributed.algorithms._checkpoint.checkpoint_wrapper",
})
EXTRA_NAMES = EXTRA_NAMES + ("torch.distributed.checkpoint.state_dict._init_optim_state",)
_DCP_FORMAT = ("msnb's own directory format (a JSON .metadata plus one __<rank>_0.distcp per rank, written by "
               "torch.save and read with weights_only=True, sha256-checked: a damaged or truncated file raises "
               "CheckpointException in one line and changes nothing); PyTorch-written checkpoint directories "
               "(pickled .metadata) raise msnb's unsupported error and PyTorch cannot read msnb's; DTensor / "
               "sharded-parameter pieces are saved once per piece, plain tensors and other values by rank 0 "
               "(numbers, strings, None and lists / tuples / dicts of them: other objects raise msnb's "
               "unsupported error); loading fills the state dict in place and reshards (any world size: each "
               "target region is read from the saved chunks that overlap it); Stateful values are called; "
               "without a process group one process saves / loads (PyTorch's warning)")
_DCP_PLANNER = "options kept (allow_partial_load applies); msnb plans by itself: custom planner hooks are not called"
PARTIAL.update({
    **{f"torch.distributed.checkpoint.{ns}{n}": _DCP_FORMAT for n, mods in {
        "save": ("", "state_dict_saver."), "load": ("", "state_dict_loader."),
        "save_state_dict": ("", "state_dict_saver."), "load_state_dict": ("", "state_dict_loader.")}.items()
       for ns in mods},
    **{f"torch.distributed.checkpoint.{ns}{n}": "a local directory; the tuning options (thread_count, "
       "sync_files, single_file_per_rank, ...) are accepted and change nothing"
       for n in ("FileSystemWriter", "FileSystemReader") for ns in ("", "filesystem.")},
    **{f"torch.distributed.checkpoint.{ns}{n}": _DCP_PLANNER
       for n in ("DefaultSavePlanner", "DefaultLoadPlanner") for ns in ("", "default_planner.")},
    **{f"torch.distributed.checkpoint.{ns}TensorStorageMetadata": "properties is a dict holding the dtype only "
       "(PyTorch: TensorProperties)" for ns in ("", "metadata.")},
    "torch.distributed.tensor.parallel.PrepareModuleInput": "plain tensors are taken as this rank's piece "
                                                            "(DTensor.from_local) and redistributed as PyTorch; "
                                                            "only the redistributions msnb's DTensor has "
                                                            "(Shard <-> Replicate, Partial -> either)",
    "torch.distributed.tensor.parallel.PrepareModuleOutput": "as PrepareModuleInput, on the outputs",
    "torch.distributed.tensor.parallel.PrepareModuleInputOutput": "as PrepareModuleInput and PrepareModuleOutput",
    **{f"torch.distributed.algorithms._checkpoint.checkpoint_wrapper.{n}": "no activation recomputation: the "
       "wrapped module runs as it is (PyTorch's values, gradients, module tree, parameter names and state-dict "
       "keys; the activations are kept, so no memory is saved); checkpoint_fn= raises msnb's unsupported error"
       for n in ("checkpoint_wrapper", "CheckpointWrapper", "apply_activation_checkpointing")},
    "torch.distributed.fsdp.wrap.ModuleWrapPolicy": "answers as PyTorch's; msnb's FullyShardedDataParallel "
                                                    "accepts it and makes one unit (the same values)",
})

# --- torch.masked.MaskedTensor (msnb/adapter/torch/masked/maskedtensor.py; docs/masked-tensor.md) -------------
_MASKED_TENSOR = ("strided layout only (sparse COO / CSR data or mask raise msnb's unsupported error); unary and "
                  "binary elementwise ops (binary MaskedTensors need equal masks: PyTorch's ValueError), sum / "
                  "mean / prod / amax / amin / argmax / argmin / all, softmax / log_softmax, where, indexing, "
                  "transpose / t / reshape / view / flatten / unsqueeze; other torch functions on it raise msnb's "
                  "unsupported error (as do permute / T / squeeze / any, which PyTorch 2.13 also lacks); "
                  "isinstance(mt, torch.Tensor) is False; a plain tensor's .grad stays a plain tensor (PyTorch "
                  "makes it a MaskedTensor): masked-in values agree, elements that only fed masked-out values "
                  "hold the chain rule's value where PyTorch prints --, and a gradient through the branch "
                  "torch.where does not take is the chain rule's (0 * inf = NaN) where PyTorch masks it out; once a MaskedTensor exists msnb's torch "
                  "functions run through the torch.fx wrappers (a check per call)")
PARTIAL.update({f"torch.masked.{n}": _MASKED_TENSOR for n in ("MaskedTensor", "masked_tensor", "as_masked_tensor")})

# --- lowrank helper (issue #12): randomized SVD / PCA, adjoints, eigenvector phases -------------------------
COMPUTED_NOTES.update({
    **{f"torch.{n}": "PyTorch's randomized range finder (Gaussian sketch, niter subspace iterations, QR, then the "
       "SVD of the small projection) built from msnb's matmul / linalg.qr / linalg.svd, differentiable through "
       "them; the sketch comes from msnb's generator, which replays PyTorch's CPU stream (after the same "
       "manual_seed the same factors, up to each singular pair's sign); a sparse COO input is densified" + _REAL
       for n in ("svd_lowrank", "pca_lowrank")},
})
_EIGVEC = ("eigenvectors are LAPACK's, each defined up to {what}: numpy's OpenBLAS build picks other {what}s than "
           "PyTorch's MKL build for some matrices (random float64 matrices, 200 each: {eq}); values of A V = V "
           "diag(w), |V| and the gradients of phase-invariant functions agree (the OpInfo replay compares |V| as "
           "PyTorch's own tests do)")
PARTIAL.update({
    "torch.linalg.eig": _HOST + "LAPACK geev (PyTorch's eigenvalue order, unit-norm eigenvectors); MindSpore's CPU "
                        "Eig kernel is not used; the gradient is computed on the host too; "
                        + _EIGVEC.format(what="a unit complex factor (phase)", eq="153 of 200 equal to rounding")
                        + _REAL,
    "torch.linalg.eigh": _HOST + "LAPACK syevd (MindSpore 2.10 has no CPU eigh kernel); "
                         + _EIGVEC.format(what="sign", eq="69 of 200 equal to rounding") + _REAL,
})


def _public_names(modname: str) -> list[str]:
    import importlib

    try:
        mod = importlib.import_module(modname)
    except ImportError:
        return []
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    out = []
    for n in names:
        obj = getattr(mod, n, None)
        if obj is None or getattr(obj, "_msnb_unsupported", False):
            continue
        if type(obj).__name__ == "module" and not str(getattr(obj, "__name__", "")).startswith("msnb."):
            continue
        out.append(n)
    return out


def load_opinfo_results() -> dict:
    """The committed OpInfo replay results (``{}`` when the file is absent)."""
    if not OPINFO_RESULTS_PATH.is_file():
        return {}
    return json.loads(OPINFO_RESULTS_PATH.read_text(encoding="utf-8"))


def _entry(name: str, opinfo: dict) -> dict:
    """A name's status: ``partial`` when a note says what differs or when any of
    its OpInfo samples fails (the note then says which and why)."""
    note = PARTIAL.get(name, "")
    how = COMPUTED_NOTES.get(name, "")
    res = opinfo.get(name)
    e = {}
    if res is not None:
        total = res["passed"] + res["failed"]
        e = {"opinfo": f"{res['passed']}/{total}"}
        if res["failed"]:
            why = "; ".join(res["failures"][:2])
            extra = f"OpInfo: {res['failed']} of {total} samples fail ({why})"
            note = f"{note}; {extra}" if note else extra
    if note:
        return {"status": "partial", "note": f"{how}; {note}" if how else note, **e}
    return {"status": "supported", "note": how, **e} if how else {"status": "supported", **e}


def build_registry() -> dict:
    """Introspect the adapter (imports MindSpore) and return the registry dict."""
    from .torch import Tensor, _api_names

    torch_top = set(_api_names.MODULE_NAMES.get("torch", ())) | {
        "float", "double", "half", "long", "int", "short", "cfloat", "cdouble", "newaxis"}
    entries: dict[str, dict] = {}
    results = load_opinfo_results()
    opinfo = results.get("names", {})

    def add(name):
        entries[name] = _entry(name, opinfo)

    for ns, modname in NAMESPACES.items():
        for n in _public_names(modname):
            if ns == "torch" and n not in torch_top:
                continue
            add(f"{ns}.{n}")
    import importlib
    for name in EXTRA_NAMES:
        head = max((ns for ns in NAMESPACES if name.startswith(ns + ".")), key=len)
        obj = importlib.import_module(NAMESPACES[head])
        for part in name[len(head) + 1:].split("."):
            obj = getattr(obj, part, None)
        if obj is not None:
            add(name)
    # methods of the classes users call methods on (``net.train()``, ``optimizer.step()``)
    from .torch import nn, optim
    from .torch.utils import data
    for qual, cls in (("torch.nn.Module", nn.Module), ("torch.optim.Optimizer", optim.Optimizer),
                      ("torch.utils.data.DataLoader", data.DataLoader),
                      ("torch.utils.data.Dataset", data.Dataset)):
        for k in cls.__mro__:
            if not k.__module__.startswith("msnb."):
                continue
            for n, v in vars(k).items():
                if not n.startswith("_") and callable(v) or isinstance(v, property) and not n.startswith("_"):
                    add(f"{qual}.{n}")
    tensor_api = set(_api_names.TENSOR_METHODS) | {"__getitem__", "__setitem__", "__format__", "__array__",
                                                 "__iter__", "__len__", "__bool__", "__float__", "__int__"}
    missing = object()
    for n in sorted(tensor_api):
        obj = getattr(Tensor, n, missing)  # ``grad`` is a class attribute whose value is None
        if obj is missing or getattr(obj, "_msnb_unsupported", False):
            continue
        # inherited from MindSpore and not re-implemented: not ours to list
        owner = next((k for k in Tensor.__mro__ if n in vars(k)), None)
        if owner is None or not owner.__module__.startswith("msnb."):
            continue
        add(f"torch.Tensor.{n}")
    reg = {"version": 1, "entries": dict(sorted(entries.items()))}
    if results:
        reg["opinfo_summary"] = results.get("summary", {})
    return reg


def opinfo_lines(reg: dict) -> list[str]:
    """The OpInfo replay figures, one line each."""
    s = reg.get("opinfo_summary")
    if not s:
        return []

    def pct(d, key="pass"):
        return f"{d[key]}/{d['evaluated']} ({100.0 * d[key] / max(d['evaluated'], 1):.1f}%)"

    return [f"OpInfo ops passing fully (primary form): {pct(s['ops'])}",
            f"OpInfo method forms passing fully: {pct(s['methods'])}",
            f"ModuleInfos passing fully: {pct(s['modules'])}",
            f"OpInfo samples passing: {pct(s['samples'])}",
            "by namespace: " + ", ".join(f"{k} {v['pass']}/{v['evaluated']}" for k, v in s["namespaces"].items())]


def to_markdown(reg: dict) -> str:
    rows = ["# msnb support list", "",
            "Generated by `python -m msnb.adapter.support --markdown`. A name not listed here is not",
            "supported: using it raises an error that names it. A name PyTorch's operator test database",
            "(OpInfo / ModuleInfo, replayed by `tools/opinfo_report.py`) covers is `supported` only when",
            "all its replayed samples pass; the `OpInfo` column gives passing / replayed samples.", "",
            f"{sum(1 for e in reg['entries'].values() if e['status'] == 'supported')} supported, "
            f"{sum(1 for e in reg['entries'].values() if e['status'] == 'partial')} partial.", ""]
    lines = opinfo_lines(reg)
    if lines:
        rows += [f"- {ln}" for ln in lines] + [""]
    rows += ["| API | status | OpInfo | note |", "| --- | --- | --- | --- |"]
    for name, e in reg["entries"].items():
        note = e.get("note", "").replace("|", "\\|")
        rows.append(f"| `{name}` | {e['status']} | {e.get('opinfo', '')} | {note} |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m msnb.adapter.support",
                                description="msnb's support registry of torch / torchvision APIs.")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--markdown", action="store_true", help="print the support list as Markdown")
    g.add_argument("--write", action="store_true", help="regenerate support.json and docs/support.md")
    g.add_argument("--check", action="store_true", help="exit 1 if support.json is out of date")
    args = p.parse_args(argv)
    reg = build_registry()
    if args.write:
        REGISTRY_PATH.write_text(json.dumps(reg, indent=1) + "\n", encoding="utf-8")
        docs = Path(__file__).resolve().parents[2] / "docs" / "support.md"
        if docs.parent.is_dir():
            docs.write_text(to_markdown(reg), encoding="utf-8")
        print(f"wrote {len(reg['entries'])} entries to {REGISTRY_PATH}")
        return 0
    if args.check:
        current = json.loads(REGISTRY_PATH.read_text(encoding="utf-8"))
        if current != reg:
            print("support.json is out of date: run python -m msnb.adapter.support --write", file=sys.stderr)
            return 1
        return 0
    if args.markdown:
        sys.stdout.write(to_markdown(reg))
        return 0
    counts = {}
    for e in reg["entries"].values():
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    print(json.dumps(counts))
    for line in opinfo_lines(reg):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
