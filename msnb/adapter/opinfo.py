"""Replay PyTorch's own operator test database through msnb, real torch as oracle.

PyTorch ships ``torch.testing._internal.common_methods_invocations.op_db``
(OpInfos, each with ``sample_inputs``) and ``common_modules.module_db``
(ModuleInfos).  This module runs their samples through msnb's adapter and
through real PyTorch 2.13 on the same inputs, and compares forward values,
dtypes, shapes and first-order gradients of ``(out * G).sum()`` for a fixed
random ``G``.

It is a developer tool: it needs the ``test`` extra (torch, expecttest).
``tests/adapter/opinfo`` replays a bounded number of samples per case and
checks the outcome against ``tests/adapter/opinfo/expected_failures.py``;
``tools/opinfo_report.py`` replays everything and writes
``msnb/adapter/opinfo_results.json``, which :mod:`msnb.adapter.support` reads.

A *case* is one (OpInfo, form, dtype): ``form`` is ``function`` (the
``torch.x`` / ``torch.nn.functional.x`` name), ``method`` (``Tensor.x``) or
``module`` (a ModuleInfo, float32 only).  Its key is
``"<op name>[.<variant>]:<form>:<dtype>"``.
"""

from __future__ import annotations

import itertools
import math
import types
from dataclasses import dataclass, field

import numpy as np

__all__ = ["RTOL", "ATOL", "DTYPES", "Case", "Outcome", "load_dbs", "op_cases", "module_cases", "run_case",
           "suite_limit", "SUITE_LIMITS", "SUITE_DTYPES", "suite_cases", "reason_of", "Mismatch",
           "op_key", "namespace_of", "RANDOM_OPS"]

RTOL = 1e-4
ATOL = 1e-5
#: dtypes replayed when an op supports them (float32 first: the primary one)
DTYPES = ("float32", "float64", "int64", "bool")

#: ops whose values are random: only shapes and dtypes are compared
RANDOM_OPS = ("bernoulli", "normal", "rand_like", "randn_like", "randint_like", "randint", "multinomial",
              "poisson", "uniform", "exponential", "geometric", "cauchy", "log_normal", "random_",
              "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
              "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout", "nn.functional.rrelu",
              "randn", "rand", "empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided",
              "empty_permuted", "nn.functional.gumbel_softmax", "torch._refs.empty")
RANDOM_MODULES = ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
                  "RReLU")


def load_dbs():
    """``(op_db, module_db)`` from the torch wheel (imports take ~10-20 s)."""
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_modules import module_db
    return op_db, module_db


def op_key(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def namespace_of(name: str) -> str:
    """``torch``, ``nn.functional``, ``linalg``, ``special``, ``fft``, ... for an OpInfo name."""
    for ns in ("nn.functional", "linalg", "special", "fft", "masked", "signal.windows", "sparse", "_refs"):
        if name.startswith(ns + "."):
            return ns.split(".")[0] if ns == "signal.windows" else ns
    return "torch"


@dataclass(frozen=True)
class Case:
    """One replayable unit: an OpInfo or ModuleInfo in one form and dtype."""

    key: str
    name: str  # the public torch name, e.g. torch.nn.functional.relu / torch.Tensor.add / torch.nn.Linear
    form: str  # function | method | module
    dtype: str
    info: object = field(compare=False, repr=False)
    namespace: str = "torch"


@dataclass
class Outcome:
    """What replaying a case's samples gave."""

    case: Case
    passed: int = 0
    failed: int = 0
    failures: list = field(default_factory=list)  # (sample index, reason)

    @property
    def ok(self):
        return self.failed == 0 and self.passed > 0


def _evaluated(op) -> bool:
    """Ops the replay evaluates: public names with a CPU float32 (or other replayed dtype) sample."""
    name = op.name
    if name.startswith("_") or "jiterator" in name or name.startswith(("sparse.", "_refs.")):
        return False
    mod = getattr(op.op, "__module__", "") or ""
    if type(op.op).__name__ in ("OpOverload", "OpOverloadPacket") or "jiterator" in mod:
        return False
    return bool(_op_dtypes(op))


def _op_dtypes(op):
    import torch
    sup = op.supported_dtypes("cpu")
    return [d for d in DTYPES if getattr(torch, d) in sup]


def _method_name(op):
    mv = op.method_variant
    if mv is None:
        return None
    n = getattr(mv, "__name__", None)
    if n is None or n == "<lambda>":
        return None
    return n


def _function_name(op):
    """The public ``torch.*`` path of an OpInfo's function form, or None (operator-only ops)."""
    import torch
    if op.name.startswith("__"):
        return None
    path = op.name
    obj = torch
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    if isinstance(obj, torch.dtype) or not callable(obj):
        return None  # e.g. the ``bfloat16`` OpInfo is Tensor.bfloat16, not the dtype torch.bfloat16
    return "torch." + path


def op_cases(op_db):
    """Every (op, form, dtype) case the replay evaluates, float32 first."""
    out = []
    for op in op_db:
        if not _evaluated(op):
            continue
        fname = _function_name(op)
        mname = _method_name(op)
        ns = namespace_of(op.name)
        for d in _op_dtypes(op):
            if fname is not None:
                out.append(Case(f"{op_key(op)}:function:{d}", fname, "function", d, op, ns))
            if mname is not None:
                out.append(Case(f"{op_key(op)}:method:{d}", f"torch.Tensor.{mname}", "method", d, op, ns))
    return out


def module_cases(module_db):
    out = []
    for mi in module_db:
        cls = mi.module_cls
        if not cls.__module__.startswith("torch.nn.modules"):
            continue
        key = mi.name + (f".{mi.variant_name}" if getattr(mi, "variant_name", "") else "")
        out.append(Case(f"{key}:module:float32", f"torch.nn.{cls.__name__}", "module", "float32", mi, "nn"))
    return out


# --- conversion between real torch and msnb --------------------------------------------

def _mt():
    import msnb.adapter.torch as mt
    return mt


_MOD_MAP = None


def _module_map():
    """real torch module -> msnb module, for rebinding the globals of OpInfo's lambdas."""
    global _MOD_MAP
    if _MOD_MAP is None:
        import torch
        import torch.nn.functional as F
        from torch.testing._utils import wrapper_set_seed
        mt = _mt()
        _MOD_MAP = {id(torch): mt, id(F): mt.nn.functional, id(torch.nn): mt.nn,
                    id(wrapper_set_seed): _msnb_wrapper_set_seed}
    return _MOD_MAP


def _msnb_wrapper_set_seed(op, *args, **kwargs):
    """PyTorch's ``wrapper_set_seed`` for msnb: ``op`` runs right after ``manual_seed(42)`` on
    msnb's generator (PyTorch's mt19937 stream, so a randomized op such as svd_lowrank draws
    PyTorch's test matrix), and the generator's state is restored afterwards."""
    mt = _mt()
    state = mt.get_rng_state()
    try:
        mt.manual_seed(42)
        return op(*args, **kwargs)
    finally:
        mt.set_rng_state(state)


def _rebind(fn):
    """A copy of an OpInfo helper lambda whose ``torch`` / ``F`` globals are
    msnb's; its ``wrapper_set_seed`` seeds msnb's generator, not torch's."""
    if not isinstance(fn, types.FunctionType):
        return None
    from torch.testing._utils import wrapper_set_seed
    mm = _module_map()
    g = dict(fn.__globals__)
    changed = False
    for k, v in fn.__globals__.items():
        if id(v) in mm:
            g[k] = mm[id(v)]
            changed = True
    if g.get("wrapper_set_seed") is wrapper_set_seed:
        g["wrapper_set_seed"] = _msnb_wrapper_set_seed
    if not changed:
        return None
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def to_msnb(x, leaves):
    """Convert a sample's argument tree; tensors needing grad become fresh msnb leaves."""
    import torch
    mt = _mt()
    if isinstance(x, torch.Tensor):
        for r, t in leaves:  # one tensor passed twice (``loss(x, x)``) stays one msnb leaf
            if r is x:
                return t
        t = _partial_view(x)
        if t is None:
            arr = x.detach().cpu().resolve_conj().resolve_neg().numpy().copy()
            t = mt.tensor(arr, dtype=getattr(mt, str(x.dtype).replace("torch.", "")))
        if x.requires_grad:
            t.requires_grad_(True)
            leaves.append((x, t))
        return t
    if isinstance(x, torch.dtype):
        return getattr(mt, str(x).replace("torch.", ""))
    if isinstance(x, torch.device):
        return mt.device(str(x))
    if isinstance(x, torch.memory_format):
        return getattr(mt, str(x).replace("torch.", ""))
    if isinstance(x, torch.Size):
        return mt.Size(x)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(to_msnb(v, leaves) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(to_msnb(v, leaves) for v in x)
    if isinstance(x, dict):
        return {k: to_msnb(v, leaves) for k, v in x.items()}
    if isinstance(x, torch.nn.Module):
        return _port_module(x)
    if callable(x) and (getattr(x, "__module__", None) or "").startswith(("torch.nn.functional", "torch._C")):
        # an activation passed to a constructor (``activation=F.gelu``): msnb's function of that name
        fn = getattr(mt.nn.functional, getattr(x, "__name__", ""), None)
        return fn if fn is not None else x
    return x


def _partial_view(x):
    """A sample input that is a contiguous view into part of a bigger base (``as_strided``'s
    partial_views samples address the storage around it), rebuilt in msnb as the same view of
    the same base (a slice of the flattened base); None for any other tensor."""
    import torch
    base = x._base
    if base is None or not x.is_contiguous() or not base.is_contiguous() or base.dtype != x.dtype or \
            x.is_conj() or x.is_neg() or base.layout != torch.strided or \
            (x.storage_offset() == 0 and x.numel() == base.numel()):
        return None
    mt = _mt()
    mbase = mt.tensor(base.detach().numpy().copy(), dtype=getattr(mt, str(x.dtype).replace("torch.", "")))
    off = x.storage_offset()
    return mbase.reshape(-1)[off:off + x.numel()].view(tuple(x.shape))


def _layer_args(m):
    """Constructor arguments of a real Transformer{Encoder,Decoder}Layer, read from its parts."""
    return ((m.self_attn.embed_dim, m.self_attn.num_heads, m.linear1.out_features, m.dropout.p,
             to_msnb(m.activation, [])),
            dict(layer_norm_eps=m.norm1.eps, batch_first=m.self_attn.batch_first, norm_first=m.norm_first,
                 bias=m.linear1.bias is not None))


#: real modules a ModuleInfo passes to a constructor (``TransformerEncoder(layer, 2)``), rebuilt in msnb
#: from their hyper-parameters; the weights come with the outer module's state_dict
_PORTABLE = {"TransformerEncoderLayer": _layer_args, "TransformerDecoderLayer": _layer_args,
             "PairwiseDistance": lambda m: ((m.norm, m.eps, m.keepdim), {})}


def _port_module(m):
    name = type(m).__name__
    if name not in _PORTABLE:
        raise TypeError(f"the replay cannot rebuild a real torch.nn.{name} argument in msnb")
    args, kw = _PORTABLE[name](m)
    return getattr(_mt().nn, name)(*args, **kw)


def _flat(x):
    import torch
    mt = _mt()
    if isinstance(x, (torch.Size, mt.Size)):
        return [x]
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _flat(v)]
    return [x]


class Mismatch(AssertionError):
    """msnb's result differs from PyTorch's."""


class TorchRefused(Exception):
    """Real torch raised on a sample msnb was to be compared on (an extremal value it rejects)."""


def _np(t):
    t = t.detach()
    if getattr(t, "_is_zerotensor", lambda: False)():  # PyTorch's lazily-zero gradients
        t = t.new_zeros(t.shape)
    if str(t.dtype) in ("torch.bfloat16", "torch.float16"):
        t = t.float()
    if t.is_complex():  # PyTorch's lazy conjugates (ifft / ihfft of real input) refuse numpy()
        t = t.resolve_conj()
    return np.asarray(t.numpy())


def _compare(r, m, where, values=True, rtol=RTOL, atol=ATOL, finite_only=False):
    """Compare torch's ``r`` with msnb's ``m`` (NaN equals NaN).  ``finite_only``: only the
    elements where torch's value is finite are compared (gradients of extremal samples)."""
    import torch
    mt = _mt()
    if isinstance(r, torch.Tensor) and r.layout != torch.strided:
        _compare_sparse(r, m, where, values, rtol, atol)
    elif isinstance(r, torch.Tensor):
        if not isinstance(m, mt.Tensor):
            raise Mismatch(f"{where}: msnb returned {type(m).__name__}, torch a Tensor")
        if tuple(r.shape) != tuple(m.shape):
            raise Mismatch(f"{where}: shape {tuple(m.shape)} != torch {tuple(r.shape)}")
        if str(r.dtype) != str(m.dtype):
            raise Mismatch(f"{where}: dtype {m.dtype} != torch {r.dtype}")
        if not values:
            return
        rv, mv = _np(r), _np(m)
        if rv.dtype.kind in "fc":
            big = np.complex128 if rv.dtype.kind == "c" else np.float64
            a, b = mv.astype(big), rv.astype(big)
            bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
            if finite_only:
                bad &= np.isfinite(b)
            if bad.any():
                i = np.argwhere(bad)[0]
                raise Mismatch(f"{where}: values differ at {tuple(int(k) for k in i)}: msnb {a[tuple(i)]!r} "
                               f"torch {b[tuple(i)]!r} ({int(bad.sum())} of {bad.size})")
        elif not np.array_equal(mv, rv):
            raise Mismatch(f"{where}: values differ")
    elif isinstance(r, (bool, int, float, complex)):
        if isinstance(m, mt.Tensor) or type(m) is not type(r):
            raise Mismatch(f"{where}: msnb returned {type(m).__name__}, torch {type(r).__name__}")
        if values and not (m == r or (isinstance(r, float) and (math.isnan(r) and math.isnan(m)
                                                                   or math.isclose(m, r, rel_tol=rtol,
                                                                                   abs_tol=atol)))):
            raise Mismatch(f"{where}: {m!r} != torch {r!r}")
    elif isinstance(r, torch.Size):
        if tuple(r) != tuple(m):
            raise Mismatch(f"{where}: {tuple(m)} != torch {tuple(r)}")
    elif isinstance(r, torch.dtype):
        if str(r) != str(m):
            raise Mismatch(f"{where}: {m} != torch {r}")
    elif r is None:
        if m is not None:
            raise Mismatch(f"{where}: msnb returned {type(m).__name__}, torch None")


def _compare_sparse(r, m, where, values, rtol, atol):
    """A sparse result (``to_sparse``): the same layout, shape and dtype, and, densified, the same
    values (its stored indices need not be ordered as PyTorch's)."""
    if str(getattr(m, "layout", None)) != str(r.layout):
        raise Mismatch(f"{where}: msnb returned a {type(m).__name__} of layout {getattr(m, 'layout', None)}, "
                       f"torch a {r.layout} tensor")
    _compare(r.to_dense(), m.to_dense(), f"{where} (densified)", values=values, rtol=rtol, atol=atol)


def _weights(outs, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(o.shape)) for o in outs]


def _grad_pairs(routs, mouts):
    import torch
    return [(r, m) for r, m in zip(routs, mouts)
            if isinstance(r, torch.Tensor) and r.requires_grad and r.dtype.is_floating_point]


def _check_grads(routs, mouts, leaves, where, rtol=RTOL, atol=ATOL, finite_only=False):
    """Gradients of sum((out * G).sum()) over float outputs, w.r.t. every leaf (``finite_only``:
    compared where torch's gradient is finite)."""
    import torch
    mt = _mt()
    pairs = _grad_pairs(routs, mouts)
    if not pairs or not leaves:
        return
    ws = _weights([r for r, _ in pairs])
    rl = sum((r * torch.tensor(w, dtype=r.dtype)).sum() for (r, _), w in zip(pairs, ws))
    rin = [r for r, _ in leaves]
    rgrads = torch.autograd.grad(rl, rin, allow_unused=True)
    for _, m in pairs:
        if not isinstance(m, mt.Tensor) or not m.requires_grad:
            raise Mismatch(f"{where}: msnb output does not require grad")
    ml = sum((m * mt.tensor(w, dtype=m.dtype)).sum() for (_, m), w in zip(pairs, ws))
    ml.backward()
    for k, ((_, mi), rg) in enumerate(zip(leaves, rgrads)):
        mg = mi.grad
        if rg is None:
            if mg is not None and np.any(_np(mg) != 0):
                raise Mismatch(f"{where}: gradient of input {k}: msnb nonzero, torch none")
            continue
        if mg is None:
            if np.any(_np(rg) != 0):
                raise Mismatch(f"{where}: gradient of input {k}: msnb produced none")
            continue
        _compare(rg, mg, f"{where}: gradient of input {k}", rtol=rtol, atol=atol, finite_only=finite_only)


def reason_of(exc) -> str:
    """One short line naming what went wrong."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip().strip("-").strip()]
    msg = lines[0] if lines else ""
    msg = msg.replace(" (see the support list: python -m msnb.adapter.support --markdown)", "")
    if len(msg) > 160:
        msg = msg[:157] + "..."
    return f"{type(exc).__name__}: {msg}" if not isinstance(exc, Mismatch) else msg


def _sample_iter(op, dtype, grad):
    import torch
    return op.sample_inputs("cpu", getattr(torch, dtype), requires_grad=grad)


def _resolve_function(case):
    """The msnb callable for an op's function form (or a rebound OpInfo lambda)."""
    op = case.info
    mt = _mt()
    import torch
    obj_real = torch
    for part in case.name.split(".")[1:]:
        obj_real = getattr(obj_real, part)
    if obj_real is not op.op and isinstance(op.op, types.FunctionType) and \
            "torch.testing" in (op.op.__module__ or ""):
        fn = _rebind(op.op)
        if fn is not None:
            return fn
    obj = mt
    for part in case.name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _replay_op_sample(case, sample, fn, extremal=False):
    """Run one sample through torch and msnb and compare.  ``extremal`` (a sample holding NaN /
    inf / signed zeros, see :mod:`msnb.adapter.opinfo_extremal`): gradients are compared where
    torch's are finite, and torch refusing the sample raises :class:`TorchRefused`."""
    op = case.info
    leaves = []
    minput = to_msnb(sample.input, leaves)
    margs = to_msnb(list(sample.args), leaves)
    mkw = to_msnb(dict(sample.kwargs), leaves)
    real_fn = op.op if case.form == "function" else op.method_variant
    try:
        rout = real_fn(sample.input, *sample.args, **sample.kwargs)
    except Exception as e:
        if extremal:
            raise TorchRefused(reason_of(e)) from e
        raise
    if case.form == "function":
        mout = fn(minput, *margs, **mkw)
    else:
        meth = getattr(minput, case.name.rsplit(".", 1)[1])
        mout = meth(*margs, **mkw)
    routs, mouts = _flat(rout), _flat(mout)
    if len(routs) != len(mouts):
        raise Mismatch(f"msnb returned {len(mouts)} outputs, torch {len(routs)}")
    values = not any(op.name == r or op.name.startswith(r + ".") for r in RANDOM_OPS)
    tol = _tolerance(op, case.dtype)
    where = "output"
    process = sample.output_process_fn_grad
    if not _is_identity(process):
        # The sample names the outputs' differentiable part (PyTorch's ``output_process_fn_grad``):
        # its gradients are checked on the processed outputs.  The raw outputs are compared in
        # values too, as PyTorch's own test_noncontiguous_samples does, except for ops whose
        # outputs are not unique (singular / eigen vectors known only up to sign or phase, a
        # randomized SVD's factors): those in number, shape and dtype, their processed
        # outputs (U @ V^H, |V|, ...) in values
        raw_values = values and not _nonunique(op.name)
        for i, (r, m) in enumerate(zip(routs, mouts)):
            _compare(r, m, f"output {i}", values=raw_values, **tol)
        routs, mouts = _flat(process(rout)), _flat((_rebind(process) or process)(mout))
        if len(routs) != len(mouts):
            raise Mismatch(f"processed: msnb gave {len(mouts)} outputs, torch {len(routs)}")
        where = "processed output"
    try:
        for i, (r, m) in enumerate(zip(routs, mouts)):
            _compare(r, m, f"{where} {i}", values=values, **tol)
    except Mismatch:
        if not (values and case.dtype == "float32" and where == "output" and _closer_than_torch(
                real_fn, sample, routs, mouts, tol)):
            raise
    if values:
        try:
            _check_grads(routs, mouts, leaves, "grad", finite_only=extremal, **tol)
        except Mismatch:
            if not (_torch_grad_known_wrong(op, case.dtype) and _numeric_grads_agree(
                    real_fn, sample, process, routs, leaves, tol)):
                raise


def _torch_grad_known_wrong(op, dtype) -> bool:
    """Does the OpInfo itself mark PyTorch's backward as wrong on CPU (an ``expectedFailure`` on
    ``TestBwdGradients.test_fn_grad``, PyTorch's check of its gradients against finite
    differences), e.g. as_strided_scatter's gradient of the input where ``src`` overwrites it?"""
    import unittest

    import torch
    from torch.testing._internal.opinfo.core import DecorateInfo
    return any(isinstance(d, DecorateInfo) and unittest.expectedFailure in d.decorators and
               d.is_active("TestBwdGradients", "test_fn_grad", "cpu", getattr(torch, dtype), {})
               for d in getattr(op, "decorators", ()) or ())


#: elements of the differentiated inputs up to which the numerical gradient is computed
NUMERIC_GRAD_MAX = 256


def _numeric_grads_agree(real_fn, sample, process, routs, leaves, tol, eps=1e-6) -> bool:
    """Where PyTorch's own gradient is known wrong, the oracle is the numerical one: central
    differences of torch's forward in float64 of ``sum(out * G)`` (the same ``G`` as
    :func:`_check_grads`) with respect to every differentiated input.  True when msnb's
    gradients match it."""
    import torch
    copies = {}

    def conv(x):
        if isinstance(x, torch.Tensor):
            if id(x) not in copies:
                copies[id(x)] = x.detach().to(torch.float64 if x.dtype.is_floating_point else x.dtype).clone()
            return copies[id(x)]
        if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
            return type(x)(conv(v) for v in x)
        if isinstance(x, dict):
            return {k: conv(v) for k, v in x.items()}
        return x
    inp, args, kw = conv(sample.input), conv(list(sample.args)), conv(dict(sample.kwargs))
    which = [i for i, r in enumerate(routs) if isinstance(r, torch.Tensor) and r.requires_grad and
             r.dtype.is_floating_point]
    ws = _weights([routs[i] for i in which])
    if sum(r.numel() for r, _ in leaves) > NUMERIC_GRAD_MAX:
        return False

    def loss():
        outs = _flat(process(real_fn(inp, *args, **kw)))
        return sum(float((outs[i].double() * torch.tensor(w)).sum()) for i, w in zip(which, ws))
    for r, m in leaves:
        c = copies.get(id(r))
        if c is None or not c.dtype.is_floating_point:
            return False
        flat = c.view(-1)
        g = np.zeros(c.numel())
        for j in range(c.numel()):
            old = float(flat[j])
            flat[j] = old + eps
            hi = loss()
            flat[j] = old - eps
            lo = loss()
            flat[j] = old
            g[j] = (hi - lo) / (2 * eps)
        mg = np.zeros(c.numel()) if m.grad is None else _np(m.grad).astype(np.float64).reshape(-1)
        if not np.allclose(mg, g, rtol=max(tol["rtol"], 1e-3), atol=max(tol["atol"], 1e-4)):
            return False
    return True


def _to_float64(x):
    import torch
    if isinstance(x, torch.Tensor) and x.dtype == torch.float32:
        return x.detach().double()
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_to_float64(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_float64(v) for k, v in x.items()}
    return x


def _closer_than_torch(real_fn, sample, routs, mouts, tol) -> bool:
    """A float32 output that misses torch's float32 one still passes when it is no further from
    torch's float64 answer on the same inputs than torch's own float32 output is (plus the
    tolerance): an ill-conditioned sample (``matrix_exp`` of a matrix with entries near 400) is
    rounded differently by every float32 implementation, and which of two equally accurate
    results the oracle got depends on the host's BLAS.  Shapes and dtypes are still compared
    exactly, and gradients as before."""
    import torch
    try:
        r64 = _flat(real_fn(_to_float64(sample.input), *_to_float64(list(sample.args)),
                            **_to_float64(dict(sample.kwargs))))
    except Exception:
        return False
    if len(r64) != len(routs):
        return False
    for r, m, e in zip(routs, mouts, r64):
        if not (isinstance(r, torch.Tensor) and r.dtype == torch.float32 and isinstance(e, torch.Tensor)
                and tuple(e.shape) == tuple(r.shape)):
            continue
        exact = _np(e).astype(np.float64)
        rv, mv = _np(r).astype(np.float64), _np(m).astype(np.float64)
        # where torch's float32 or float64 answer is NaN or infinite, msnb's must be torch's float32
        # one (a distance to NaN is NaN for any answer, so it would excuse all)
        extreme = ~(np.isfinite(exact) & np.isfinite(rv))
        same = (mv == rv) | (np.isnan(mv) & np.isnan(rv))
        with np.errstate(invalid="ignore"):
            err_torch, err_msnb = np.abs(rv - exact), np.abs(mv - exact)
            slack = tol["atol"] + tol["rtol"] * np.abs(exact)
            close = err_msnb <= err_torch + slack
        if not np.all(np.where(extreme, same, close)):
            return False
    return True


#: ops whose outputs are not unique (PyTorch's own tests skip comparing them raw)
NONUNIQUE_OPS = ("linalg.eig", "linalg.eigh", "linalg.svd", "svd", "svd_lowrank", "pca_lowrank")


def _nonunique(name) -> bool:
    return name in NONUNIQUE_OPS


def _is_identity(fn) -> bool:
    """Is ``fn`` an identity lambda (SampleInput's default ``output_process_fn_grad``)?"""
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_argcount == 1 and not code.co_freevars and \
        code.co_code == _IDENTITY.co_code


_IDENTITY = (lambda x: x).__code__


def _tolerance(op, dtype):
    """The replay's tolerances, loosened where the OpInfo itself loosens PyTorch's own
    same-op comparison (a ``toleranceOverride`` on TestCommon.test_noncontiguous_samples for
    this dtype on CPU, e.g. svd_lowrank float32 1e-3): never tighter than RTOL / ATOL."""
    import torch
    from torch.testing._internal.common_device_type import toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo
    tdtype = getattr(torch, dtype)
    rtol, atol = RTOL, ATOL
    for dec in getattr(op, "decorators", ()) or ():
        if isinstance(dec, DecorateInfo) and not dec.is_active("TestCommon", "test_noncontiguous_samples",
                                                               "cpu", tdtype, {}):
            continue
        for d in dec.decorators if isinstance(dec, DecorateInfo) else (dec,):
            if isinstance(d, toleranceOverride) and tdtype in d.d:
                rtol, atol = max(rtol, d.d[tdtype].rtol), max(atol, d.d[tdtype].atol)
    return {"rtol": rtol, "atol": atol}


def run_case(case, limit=None, progress=None) -> Outcome:
    """Replay up to ``limit`` samples of ``case`` (all when None); ``progress(i, reason)``, if
    given, is called before sample ``i`` with reason None and after it with "" (passed) or the
    failure's reason, so that a supervisor can time each sample and keep what finished."""
    res = Outcome(case)
    if case.form == "module":
        return _run_module(case, limit, res, progress)
    op = case.info
    import torch
    grad = case.dtype in ("float32", "float64") and op.supports_autograd
    try:
        fn = _resolve_function(case) if case.form == "function" else None
        samples = _sample_iter(op, case.dtype, grad)
    except Exception as e:  # noqa: BLE001 - a missing name is a failure of every sample
        res.failed = 1
        res.failures.append((0, reason_of(e)))
        return res
    torch.manual_seed(0)
    return _replay_all(res, samples, limit, lambda sample: _replay_op_sample(case, sample, fn), progress)


def _replay_all(res, samples, limit, replay_one, progress=None):
    """Replay up to ``limit`` samples, recording each failure with its reason."""
    report = progress or (lambda i, why: None)
    for i, sample in enumerate(itertools.islice(samples, limit)):
        report(i, None)
        try:
            replay_one(sample)
        except Exception as e:  # noqa: BLE001 - every failure is recorded with its reason
            res.failed += 1
            res.failures.append((i, reason_of(e)))
            report(i, res.failures[-1][1])
        else:
            res.passed += 1
            report(i, "")
    return res


# --- modules -----------------------------------------------------------------------------

def _run_module(case, limit, res, progress=None):
    import torch
    mi = case.info
    mt = _mt()
    try:
        mcls = getattr(mt.nn, mi.module_cls.__name__)
        inputs = mi.module_inputs_func(mi, device="cpu", dtype=torch.float32, requires_grad=True, training=True)
    except Exception as e:  # noqa: BLE001
        res.failed = 1
        res.failures.append((0, reason_of(e)))
        return res
    return _replay_all(res, inputs, limit, lambda minput: _replay_module_sample(case, minput, mcls), progress)


def _replay_module_sample(case, minput, mcls):
    import torch
    mi = case.info
    mt = _mt()
    cargs, ckw = minput.constructor_input.args, minput.constructor_input.kwargs
    torch.manual_seed(0)
    # PyTorch's module tests move each module to the case's dtype (buffers such as
    # FractionalMaxPool's float64 _random_samples follow)
    rmod = mi.module_cls(*cargs, **ckw).to(getattr(torch, case.dtype))
    leaves = []
    mmod = mcls(*to_msnb(list(cargs), []), **to_msnb(dict(ckw), [])).to(getattr(mt, case.dtype))
    fargs, fkw = minput.forward_input.args, minput.forward_input.kwargs
    margs = to_msnb(list(fargs), leaves)
    mkw = to_msnb(dict(fkw), leaves)
    _materialize_lazy(rmod, mmod, (fargs, fkw), (margs, mkw))
    rmod.train()
    mmod.train()
    rsd = rmod.state_dict()
    msd = mmod.state_dict()
    if sorted(rsd) != sorted(msd):
        raise Mismatch(f"state_dict keys differ: msnb {sorted(msd)[:6]} torch {sorted(rsd)[:6]}")
    mmod.load_state_dict({k: mt.tensor(v.detach().numpy().copy()) for k, v in rsd.items()})
    rparams = dict(rmod.named_parameters())
    mparams = dict(mmod.named_parameters())
    rout = rmod(*fargs, **fkw)
    mout = mmod(*margs, **mkw)
    routs, mouts = _flat(rout), _flat(mout)
    if len(routs) != len(mouts):
        raise Mismatch(f"msnb returned {len(mouts)} outputs, torch {len(routs)}")
    values = mi.module_cls.__name__ not in RANDOM_MODULES
    for i, (r, m) in enumerate(zip(routs, mouts)):
        _compare(r, m, f"output {i}", values=values)
    if values:
        for n, p in rparams.items():
            if n in mparams and p.requires_grad:
                leaves.append((p, mparams[n]))
        _check_grads(routs, mouts, leaves, "grad")


def _materialize_lazy(rmod, mmod, real_in, msnb_in):
    """A lazy module learns its parameter shapes at its first call: both get one dry run in eval
    mode without gradients (no state changes), so that torch's weights can be copied into msnb's."""
    import torch
    from torch.nn.modules.lazy import LazyModuleMixin
    if not any(isinstance(m, LazyModuleMixin) and m.has_uninitialized_params() for m in rmod.modules()):
        return
    mt = _mt()
    rmod.eval()
    mmod.eval()
    with torch.no_grad():
        rmod(*real_in[0], **real_in[1])
    with mt.no_grad():
        mmod(*msnb_in[0], **msnb_in[1])


#: samples per case that ``tests/adapter/opinfo`` replays (the report replays all)
SUITE_LIMITS = {"float32": 2, "float64": 1, "int64": 1, "bool": 1}
#: dtypes the test suite replays (the report replays every dtype in DTYPES)
SUITE_DTYPES = DTYPES


def suite_cases(cases):
    """The cases ``tests/adapter/opinfo`` replays: every float32 case (function, method and module
    forms), and for float64 / int64 / bool the primary form of each op (its function form, else its
    method form) with one sample: the other dtypes run the same code paths with other kernels, and
    replaying both forms of every dtype would double the suite's time for little more coverage."""
    function_keys = {c.key.split(":")[0] + ":" + c.dtype for c in cases if c.form == "function"}
    out = []
    for c in cases:
        if c.dtype == "float32":
            out.append(c)
        elif c.dtype in SUITE_DTYPES and (c.form == "function" or (
                c.form == "method" and c.key.split(":")[0] + ":" + c.dtype not in function_keys)):
            out.append(c)
    return out


def suite_limit(case) -> int:
    """How many samples of ``case`` the test suite replays (bounded to keep ``make test`` short)."""
    return SUITE_LIMITS.get(case.dtype, 1) if case.form != "module" else 2
