"""Differential tests of the small APIs ordinary training code touches:
``torch.__version__``, memory formats, ``torch._check*``, ``set_default_device``,
``Tensor.resize``, ``torch.cuda.Event`` on a CPU host, ``torch.functional``,
``torch.compiler`` / ``torch._dynamo`` / ``torch._logging`` and
``torch.library.custom_op``."""

import logging  # no ``from __future__ import annotations``: custom_op reads the annotations
import warnings

import numpy as np
import pytest

from .harness import case, run_case

CASES = []


def beh(id, names, fn, **opts):
    CASES.append(case(id, names, fn, kind="behaviour", **opts))


# --- version ---------------------------------------------------------------------------------
def version(t):
    from packaging.version import Version
    v = t.__version__
    return (isinstance(v, str), v >= "2.0", v < "3", v >= (2, 1), v == "2.13.0" if False else v > "1.13.1",
            Version(v).release[:2], v.split("+")[0], v > Version("1.13"))


beh("__version__", ("torch.__version__",), version)

# --- memory formats ------------------------------------------------------------------------------
MF = ("torch.channels_last", "torch.channels_last_3d", "torch.contiguous_format", "torch.preserve_format",
      "torch.memory_format")
X4 = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
beh("memory format objects", MF, lambda t: [(str(f), repr(f), type(f).__name__, isinstance(f, t.memory_format))
                                            for f in (t.channels_last, t.channels_last_3d, t.contiguous_format,
                                                      t.preserve_format)])
beh("memory_format values unchanged", MF, lambda t: (
    t.tensor(X4).contiguous(memory_format=t.channels_last), t.tensor(X4).to(memory_format=t.channels_last),
    t.tensor(X4).clone(memory_format=t.preserve_format), t.empty_like(t.tensor(X4),
                                                                      memory_format=t.channels_last).shape,
    t.tensor(X4).float(memory_format=t.contiguous_format), t.tensor(X4)[None].contiguous(
        memory_format=t.channels_last_3d)))
for bad_id, bad in (("channels_last on 2-d", lambda t: t.ones(2, 3).contiguous(memory_format=t.channels_last)),
                    ("to channels_last on 2-d", lambda t: t.ones(2, 3).to(memory_format=t.channels_last)),
                    ("channels_last_3d on 4-d", lambda t: t.tensor(X4).contiguous(memory_format=t.channels_last_3d)),
                    ("string format", lambda t: t.ones(2, 3).contiguous(memory_format="a")),
                    ("instantiate", lambda t: t.memory_format())):
    beh(f"memory_format raises[{bad_id}]", MF, bad)

# --- torch._check ----------------------------------------------------------------------------------
CHECKS = {"_check": "torch._check", "_check_index": "torch._check_index", "_check_value": "torch._check_value",
          "_check_type": "torch._check_type", "_check_not_implemented": "torch._check_not_implemented"}
for fn, name in CHECKS.items():
    beh(f"{fn}[passes]", (name,), lambda t, fn=fn: getattr(t, fn)(True, lambda: "never"))
    beh(f"{fn}[message]", (name,), lambda t, fn=fn: getattr(t, fn)(False, lambda: "bad value"))
    beh(f"{fn}[default message]", (name,), lambda t, fn=fn: getattr(t, fn)(False))


def check_messages(t):
    out = []
    for fn in CHECKS:
        try:
            getattr(t, fn)(False, lambda: f"msg of {fn}")
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    try:
        t._check(False)
    except RuntimeError as e:
        out.append(str(e))
    return out


beh("_check messages", tuple(CHECKS.values()), check_messages)
beh("_check raises[int cond]", ("torch._check",), lambda t: t._check(1))
beh("_check raises[tensor cond]", ("torch._check",), lambda t: t._check(t.tensor(False)))
beh("_check raises[message not callable]", ("torch._check",), lambda t: t._check(False, "str"))
beh("_check_with", ("torch._check_with",), lambda t: t._check_with(KeyError, False, lambda: "k"))
beh("_check_tensor_all", ("torch._check_tensor_all",), lambda t: t._check_tensor_all(t.tensor([True, False])))
beh("_check_tensor_all[passes]", ("torch._check_tensor_all",), lambda t: t._check_tensor_all(t.tensor([True])))
beh("_check_tensor_all_with", ("torch._check_tensor_all_with",),
    lambda t: t._check_tensor_all_with(IndexError, t.tensor([False]), lambda: "i"))


def check_is_size(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        t._check_is_size(3)
        t._check_is_size(-1)


beh("_check_is_size", ("torch._check_is_size",), check_is_size)


# --- devices, resize, cuda.Event --------------------------------------------------------------------
def default_device(t):
    t.set_default_device("cpu")
    out = (str(t.get_default_device()), t.ones(2).device.type)
    t.set_default_device(None)
    return out


beh("set_default_device", ("torch.set_default_device",), default_device)
beh("set_default_device raises[bad name]", ("torch.set_default_device",), lambda t: t.set_default_device("nope"))


def resize(t):
    x = t.arange(6.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = x.resize(2, 3)
    (y * t.arange(6.0).reshape(2, 3)).sum().backward()
    return y, x.grad, [str(m.message) for m in w]


beh("Tensor.resize", ("torch.Tensor.resize",), resize)
beh("Tensor.resize raises[numel]", ("torch.Tensor.resize",), lambda t: t.arange(6.0).resize(4, 2))
beh("cuda.Event on a CPU host", ("torch.cuda.Event",), lambda t: t.cuda.Event(enable_timing=True))

# --- torch.functional ---------------------------------------------------------------------------------
FUNCTIONAL = ("atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
              "cartesian_prod", "cdist", "chain_matmul", "einsum", "meshgrid", "norm", "split", "stft", "tensordot",
              "unique", "unique_consecutive", "unravel_index")
beh("torch.functional names are torch's", tuple(f"torch.functional.{n}" for n in FUNCTIONAL),
    lambda t: [getattr(t.functional, n) is getattr(t, n) for n in FUNCTIONAL])
M = np.arange(6, dtype=np.float32).reshape(2, 3)
beh("torch.functional calls", tuple(f"torch.functional.{n}" for n in ("einsum", "split", "meshgrid", "norm")),
    lambda t: (t.functional.einsum("ij,kj->ik", t.tensor(M), t.tensor(M)), t.functional.split(t.tensor(M), 1, 1),
               t.functional.meshgrid(t.arange(2), t.arange(3), indexing="ij"), t.functional.norm(t.tensor(M))))


# --- compiler / _dynamo / _logging -----------------------------------------------------------------
def compiled_module(t):
    t.manual_seed(0)
    m = t.nn.Linear(3, 2)
    cm = t.compile(m, backend="eager")  # PyTorch: no Inductor compile in a unit test
    x = t.ones(4, 3)
    with t.compiler.set_stance("force_eager"):
        eager = cm(x)
    t.compiler.set_stance("default")

    @t.compiler.set_stance("force_eager")
    def run(a):
        return cm(a)

    out = (eager, run(x), cm(x))
    t._dynamo.reset()
    t.compiler.reset()
    return out + (cm(x), t.compiler.is_compiling(), t._dynamo.is_compiling())


beh("compiler.set_stance / reset", ("torch.compiler.set_stance", "torch.compiler.reset", "torch._dynamo.reset",
                                    "torch.compiler.is_compiling", "torch._dynamo.is_compiling"), compiled_module,
    rtol=1e-5, atol=1e-6)
beh("compiler.set_stance raises[force_backend]", ("torch.compiler.set_stance",),
    lambda t: t.compiler.set_stance("force_eager", force_backend="eager"))
beh("compiler.is_exporting / is_dynamo_compiling", ("torch.compiler.is_exporting",
                                                    "torch.compiler.is_dynamo_compiling"),
    lambda t: (t.compiler.is_exporting(), t.compiler.is_dynamo_compiling()))
beh("compiler.compile", ("torch.compiler.compile",), lambda t: type(t.compiler.compile(t.nn.ReLU())).__name__)


def set_logs(t):
    t._logging.set_logs(dynamo=logging.INFO, graph_breaks=True, recompiles=True)
    level = logging.getLogger("torch._dynamo").level
    t._logging.set_logs()
    return level, logging.getLogger("torch._dynamo").level


beh("_logging.set_logs", ("torch._logging.set_logs",), set_logs)
beh("_logging.set_logs raises[unknown]", ("torch._logging.set_logs",), lambda t: t._logging.set_logs(foo=True))


# --- torch.library.custom_op --------------------------------------------------------------------------
def custom_sin(t, ns):
    L = t.library

    @L.custom_op(f"{ns}::sinx", mutates_args=())
    def sinx(x: t.Tensor) -> t.Tensor:
        return x.sin()

    x = t.tensor([0.5, 1.5], requires_grad=True)
    y = sinx(x)
    try:
        y.sum().backward()
        err = None
    except RuntimeError as e:
        err = str(e)

    def setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    sinx.register_autograd(lambda ctx, g: g * ctx.saved_tensors[0].cos(), setup_context=setup)

    @sinx.register_fake
    def _(x):
        return t.empty_like(x)

    y2 = sinx(x)
    y2.sum().backward()
    via_ops = getattr(getattr(t.ops, ns), "sinx")(x.detach())
    return repr(sinx).startswith("<CustomOpDef"), y.detach(), err, x.grad, via_ops, y2.requires_grad


LIB = ("torch.library.custom_op", "torch.library.CustomOpDef", "torch.library.register_fake", "torch.ops")
beh("library.custom_op", LIB, lambda t: custom_sin(t, "msnbtest"))


def custom_mutating(t):
    @t.library.custom_op(f"msnbtest_{t.__name__.split('.')[0]}::addn", mutates_args={"x"})
    def addn(x: t.Tensor, n: float) -> None:
        x.add_(n)

    z = t.zeros(2)
    addn(z, 2.0)
    return z


beh("library.custom_op[mutates]", ("torch.library.custom_op",), custom_mutating)


def custom_functions(t):
    ns = f"msnbtest2_{t.__name__.split('.')[0]}"

    @t.library.custom_op(f"{ns}::cube", mutates_args=())
    def cube(x: t.Tensor) -> t.Tensor:
        return x ** 3

    t.library.register_autograd(f"{ns}::cube", lambda ctx, g: g * 3 * ctx.x ** 2,
                                setup_context=lambda ctx, inputs, output: setattr(ctx, "x", inputs[0]))
    t.library.register_fake(f"{ns}::cube", lambda x: t.empty_like(x))

    @t.library.register_kernel(f"{ns}::cube", "cpu")
    def _(x):
        return x * x * x

    x = t.tensor([1.0, 2.0], requires_grad=True)
    cube(x).sum().backward()
    return cube(x.detach()), x.grad


beh("library.register_autograd/register_kernel", ("torch.library.register_autograd",
                                                  "torch.library.register_kernel", "torch.library.register_fake"),
    custom_functions)
for bad_id, bad in (("no annotation", lambda t: t.library.custom_op("ns_a::f", mutates_args=())(lambda x: x)),
                    ("no mutates_args", lambda t: t.library.custom_op("ns_b::f")),
                    ("argument type", lambda t: t.library.custom_op(f"ns_c_{t.__name__[:4]}::g", mutates_args=())(
                        _typed_add(t))(t.ones(2), "a")),
                    ("returns input", lambda t: t.library.custom_op(f"ns_d_{t.__name__[:4]}::h", mutates_args=())(
                        _identity(t))(t.ones(2)))):
    beh(f"library.custom_op raises[{bad_id}]", ("torch.library.custom_op",), bad)


def _typed_add(t):
    def g(x: t.Tensor, n: float) -> t.Tensor:
        return x + n
    return g


def _identity(t):
    def h(x: t.Tensor) -> t.Tensor:
        return x
    return h


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_small_apis_match_pytorch(c):
    run_case(c)


def test_version_says_msnb():
    import msnb.adapter.torch as mt
    assert mt.__version__ == "2.13.0+msnb" and mt.__version__.endswith("+msnb")


def test_autograd_graph_names_msnb_lacks_are_refused_by_name():
    """The torch.autograd.graph names msnb's tape does not have raise msnb's error, not a bare one
    (saved-tensor hooks are implemented: autograd/test_diff_saved_tensors_hooks.py)."""
    import msnb.adapter.torch as mt
    from msnb.adapter.torch._missing import NotSupportedError
    for name in ("register_multi_grad_hook", "allow_mutation_on_saved_tensors"):
        with pytest.raises(NotSupportedError, match=f"torch.autograd.graph.{name} is not supported by msnb yet"):
            getattr(mt.autograd.graph, name)
