"""msnb's ``torch``: PyTorch's API on MindSpore.

Inside a ``%%torch_on_ascend`` cell (or ``msnb exec``), ``import torch``
resolves here.  Names PyTorch has and msnb does not implement raise an
``AttributeError`` that says so and points to the support list; nothing
falls through to a silent wrong result.
"""

from __future__ import annotations

from .._ms import MS_VERSION as _MS_VERSION
from . import _dtype
from ._dtype import *  # noqa: F401,F403 - dtypes and promotion helpers
from ._dtype import dtype, finfo, iinfo
from ._device import device, get_default_device
from ._determinism import *  # noqa: F401,F403
from ._tensor import Size, Tensor
from ._ops.creation import *  # noqa: F401,F403
from ._ops.pointwise import *  # noqa: F401,F403
from ._ops.elementwise import *  # noqa: F401,F403
from ._ops.arrange import *  # noqa: F401,F403
from ._ops.statistics import *  # noqa: F401,F403
from ._ops.scatter_ops import *  # noqa: F401,F403
from ._ops.factorized import *  # noqa: F401,F403
from ._ops.lu import lu
from ._ops.lowrank import svd_lowrank, pca_lowrank
from ._ops.native import *  # noqa: F401,F403
from ._ops.short_time import stft
from ._ops.integer import *  # noqa: F401,F403
from ._ops.positions import (as_strided, as_strided_copy, as_strided_scatter, unfold_copy, diagonal_scatter,
                             select_scatter, slice_scatter)
from ._ops.reduction import *  # noqa: F401,F403
from ._ops.shape import *  # noqa: F401,F403
from ._ops.indexing import (gather, scatter, scatter_add, index_select, masked_select, nonzero,
                            take_along_dim, index_add, take, masked_fill)
from ._ops.linalg import *  # noqa: F401,F403
from ._ops.complex import (real, imag, conj, conj_physical, resolve_conj, resolve_neg, is_conj, angle,
                           view_as_real, view_as_complex, complex, polar)
from ._ops.matrix import (det, logdet, inverse, pinverse, matrix_power, matrix_exp, diagonal, diag_embed,
                          chain_matmul)
from ._ops.special_fns import erfc, erfinv, digamma, polygamma, i0, sinc, logit, xlog1py
from ._ops.special_fns import gammaln as lgamma, multigammaln as mvlgamma
from ._ops.matrix import torch_svd as svd, torch_qr as qr, torch_cholesky as cholesky, torch_slogdet as slogdet
from ._ops.random import (Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state, rand,
                          randn, randint, randperm, normal, bernoulli, multinomial, rand_like, randn_like,
                          randint_like, default_generator, poisson)
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, \
    is_inference_mode_enabled
from ._interop import cast_to_adapter_tensor, cast_to_ms_tensor, is_tensor, is_storage, numel, \
    typename, compile, get_num_threads, set_num_threads, \
    is_nonzero, clamp_min, clamp_max, softmax, log_softmax, relu_, sigmoid_, tanh_, set_float32_matmul_precision, \
    get_float32_matmul_precision
from . import cuda, backends, accelerator, _api_names, random, _missing
_missing_attr = _missing.module_getattr("torch")
from .serialization import save, load
from ._tensor_str import set_printoptions
from .amp.autocast_mode import autocast, is_autocast_enabled, get_autocast_dtype, set_autocast_enabled, \
    set_autocast_dtype

from .torch_version import __version__
version = type("version", (), {"__version__": __version__, "cuda": None, "git_version": "msnb",
                               "mindspore": _MS_VERSION})

from ._legacy import *  # noqa: F401,F403 - FloatTensor, LongTensor, ...
from ._tensor import bind_function_methods as _bind_function_methods
_bind_function_methods(globals())
from ._sparse_coo import layout, strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, jagged, \
    sparse_coo_tensor, spmm
from ._memory_format import memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d
from ._checks import (_check, _check_index, _check_value, _check_type, _check_not_implemented, _check_with,
                      _check_is_size, _check_tensor_all, _check_tensor_all_with)
from ._device import set_default_device
from .func import vmap
from .library import ops
from ._quantized import qint8, quint8, qint32, qscheme, per_tensor_affine, quantize_per_tensor
import builtins as _b
inf = _b.float("inf")
nan = _b.float("nan")
pi = 3.141592653589793
e = 2.718281828459045
newaxis = None


def _assert(condition, message):
    """msnb implementation of ``torch._assert``: ``assert condition, message`` (FX records it as a call)."""
    assert condition, message

_LAZY = {"nn": ".nn", "optim": ".optim", "utils": ".utils", "amp": ".amp", "distributed": ".distributed",
         "multiprocessing": ".multiprocessing", "hub": ".hub", "fft": ".fft", "linalg": ".linalg",
         "special": ".special", "masked": ".masked", "signal": ".signal", "jit": ".jit", "testing": ".testing", "onnx": ".onnx",
         "distributions": ".distributions", "_C": "._C",
         "sparse": ".sparse", "func": ".func", "profiler": ".profiler", "export": ".export",
         "nested": ".nested",
         "compiler": ".compiler", "_dynamo": "._dynamo", "_logging": "._logging", "library": ".library",
         "functional": ".functional", "torch_version": ".torch_version", "futures": ".futures", "ao": ".ao",
         "quantization": ".quantization"}


def __getattr__(name):
    import importlib

    if name in _LAZY:
        try:
            mod = importlib.import_module(_LAZY[name], __name__)
        except ModuleNotFoundError:
            raise _missing.NotSupportedError(_missing.not_supported_message(f"torch.{name}")) from None
        globals()[name] = mod
        return mod
    return _missing_attr(name)


from . import _out_arg  # noqa: E402 - wraps the functions bound above
_out_arg.apply(globals(), "torch")
from . import _numpy_compat as _np_compat  # noqa: E402 - last: wraps the functions bound above
_np_compat.apply(globals(), "torch")
from . import _number_args  # noqa: E402 - after the bindings it wraps
_number_args.apply(globals(), "torch")
_np_compat.apply_to_tensor(Tensor)
