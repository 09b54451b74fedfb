"""Differential tests: tensor creation, random sampling, dtypes, devices and
the small top-level helpers (``torch.is_tensor``, ``torch.cuda``,
``torch.accelerator``, ``torch.backends`` ...), compared with real PyTorch.

Random functions are compared on shape, dtype, value range and seeded
reproducibility, not on values (msnb's streams differ from PyTorch's)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(4)
A = rng.standard_normal((3, 4)).astype(np.float32)
I = rng.integers(-5, 6, (3, 4)).astype(np.int64)
P = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]], np.float32)

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def beh(id, names, fn, **opts):
    add(id, names, fn, kind="behaviour", **opts)


# --- creation ----------------------------------------------------------------------------------
beh("tensor", registered("torch.tensor"),
    lambda t: (t.tensor([1, 2]), t.tensor([1.0, 2]), t.tensor(True), t.tensor([[1, 2], [3, 4]], dtype=t.float64),
               t.tensor(3), t.tensor(2.5), t.tensor([]), t.tensor(np.arange(3, dtype=np.int32)),
               t.tensor(np.float64(1.5)), t.tensor([1, 2], dtype=t.float16), t.tensor([[True, False]]),
               t.tensor([t.tensor(1.0), t.tensor(2.0)]), t.tensor(t.tensor([1, 2])), t.tensor([1.5], requires_grad=True).requires_grad))
beh("tensor[bfloat16]", registered("torch.tensor", "torch.bfloat16", "torch.Tensor.bfloat16", "torch.Tensor.float"),
    lambda t: (t.tensor([1.5, 2.25], dtype=t.bfloat16).float(), t.tensor([1.0]).bfloat16().dtype))
beh("tensor[errors]", registered("torch.tensor"), lambda t: t.tensor([[1, 2], [3]]))
beh("tensor[str]", registered("torch.tensor"), lambda t: t.tensor("a"))
beh("as_tensor", registered("torch.as_tensor", "torch.asarray"),
    lambda t: (lambda x: (t.as_tensor(x) is x, t.as_tensor([1, 2]), t.as_tensor(np.ones(2)), t.asarray([1.5]),
                          t.as_tensor(x, dtype=t.float64), t.asarray(x) is x))(t.ones(2)))
beh("from_numpy", registered("torch.from_numpy"),
    lambda t: (t.from_numpy(np.arange(4.0)), t.from_numpy(np.ones((2, 2), np.float32)), t.from_numpy(np.array([1, 2], np.int32)),
               t.from_numpy(np.array([True]))))
beh("from_numpy[error]", registered("torch.from_numpy"), lambda t: t.from_numpy([1, 2]))
beh("scalar_tensor", registered("torch.scalar_tensor"),
    lambda t: (t.scalar_tensor(3), t.scalar_tensor(2.5, dtype=t.float64), t.scalar_tensor(True)))
for _n in ["zeros", "ones", "empty"]:
    beh(_n, registered(f"torch.{_n}"),
        lambda t, n=_n: (lambda f: (f(2, 3).shape, f(2, 3).dtype, f((2,)).shape, f([1, 2]).shape, f(t.Size([3])).shape,
                                    f(2, dtype=t.int64).dtype, f(0).shape, f(()).shape, f(2, requires_grad=True).requires_grad,
                                    f(2, device="cpu").device)
                         )(getattr(t, n)))
    if _n != "empty":
        beh(f"{_n}[values]", registered(f"torch.{_n}"),
            lambda t, n=_n: (getattr(t, n)(2, 3), getattr(t, n)(2, dtype=t.bool), getattr(t, n)(1, 2, dtype=t.int32)))
beh("zeros[out]", registered("torch.zeros", "torch.ones"),
    lambda t: (lambda o: (t.zeros(2, 2, out=o) is o, o, t.ones(3, out=o) is o, o))(t.empty(2, 2)))
beh("zeros[bad-size]", registered("torch.zeros"), lambda t: t.zeros(2.5))
for _n in ["zeros_like", "ones_like", "empty_like"]:
    beh(_n, registered(f"torch.{_n}"),
        lambda t, n=_n: (lambda x, f: (f(x).shape, f(x).dtype, f(x, dtype=t.float64).dtype, f(x.long()).dtype,
                                       f(x, requires_grad=True).requires_grad,
                                       f(x) if n != "empty_like" else f(x).shape))(t.ones(2, 3), getattr(t, n)))
beh("full", registered("torch.full", "torch.full_like"),
    lambda t: (t.full((2, 3), 1.5), t.full((2,), 7), t.full([2], True), t.full((1, 2), 2, dtype=t.float32),
               t.full((2,), t.tensor(3.0)), t.full_like(t.ones(2, dtype=t.int64), 4), t.full_like(t.ones(2), 0.5),
               t.full_like(t.ones(2), 2, dtype=t.float64)))
beh("arange", registered("torch.arange"),
    lambda t: (t.arange(5), t.arange(1, 4), t.arange(0, 1, 0.25), t.arange(5.0), t.arange(1, 10, 3), t.arange(5, 0, -1),
               t.arange(3, dtype=t.float32), t.arange(0, 1, 0.1).shape, t.arange(t.tensor(4)), t.arange(-1.5, 1.5),
               t.arange(0), t.arange(2, requires_grad=False, dtype=t.float64)))
beh("arange[step0]", registered("torch.arange"), lambda t: t.arange(0, 5, 0))
beh("range", registered("torch.range"), lambda t: (t.range(1, 4), t.range(0, 1, 0.5), t.range(0, 3, dtype=t.int64)))
beh("linspace", registered("torch.linspace"),
    lambda t: (t.linspace(0, 1, 5), t.linspace(-2, 2, 4, dtype=t.float64), t.linspace(3, 3, 1), t.linspace(0, 10, 11)))
beh("logspace", registered("torch.logspace"),
    lambda t: (t.logspace(0, 2, 3), t.logspace(0, 3, 4, base=2.0), t.logspace(-1, 1, 5, dtype=t.float64)))
beh("eye", registered("torch.eye"), lambda t: (t.eye(3), t.eye(2, 3), t.eye(3, dtype=t.int64), t.eye(1, 4)))
beh("tril_indices", registered("torch.tril_indices"),
    lambda t: (t.tril_indices(3, 3), t.tril_indices(3, 4, 1), t.tril_indices(4, 3, -1)))

# --- random ----------------------------------------------------------------------------------------
beh("rand", registered("torch.rand", "torch.randn"),
    lambda t: (lambda a, b, c: (a.shape, a.dtype, bool((a >= 0).all() and (a < 1).all()), b.shape, b.dtype, c.dtype,
                                t.rand(2, 3, dtype=t.float64).dtype, t.randn((4,)).shape, t.rand(2, requires_grad=True).requires_grad))
    (t.rand(50, 4), t.randn(3, 2), t.randn(2, 2, dtype=t.float16)))
beh("rand[int-dtype]", registered("torch.rand"), lambda t: t.rand(2, dtype=t.int64))
beh("randint", registered("torch.randint"),
    lambda t: (lambda a, b: (a.shape, a.dtype, bool((a >= 0).all() and (a < 10).all()), b.shape,
                             bool((b >= -3).all() and (b < 3).all()), t.randint(5, (3,), dtype=t.int32).dtype,
                             t.randint(0, 2, [4]).dtype, t.randint(3, 4, (2,))))(t.randint(10, (40, 2)), t.randint(-3, 3, (2, 5))))
beh("randperm", registered("torch.randperm"),
    lambda t: (lambda p: (p.dtype, p.shape, sorted(p.tolist()), t.randperm(4, dtype=t.int32).dtype))(t.randperm(7)))
beh("normal", registered("torch.normal"),
    lambda t: (lambda m, s: (t.normal(m, s).shape, t.normal(m, 1.0).dtype, t.normal(0.0, s).shape,
                             t.normal(2.0, 3.0, (3, 4)).shape, t.normal(2.0, 3.0, size=(5,)).dtype,
                             abs(float(t.normal(5.0, 0.01, (1000,)).mean()) - 5.0) < 0.01))(t.zeros(2, 3), t.ones(2, 3)))
beh("bernoulli", registered("torch.bernoulli", "torch.Tensor.bernoulli"),
    lambda t: (lambda p: (t.bernoulli(p).shape, t.bernoulli(p).dtype, sorted(set(t.bernoulli(p).flatten().tolist())) in ([0.0], [1.0], [0.0, 1.0]),
                          t.bernoulli(t.zeros(5)), t.bernoulli(t.ones(5)), p.bernoulli().shape, t.bernoulli(t.ones(3), 0.0),
                          t.ones(4).bernoulli(1.0)))(t.full((4, 5), 0.5)))
beh("multinomial", registered("torch.multinomial"),
    lambda t: (lambda p: (t.multinomial(p, 1).shape, t.multinomial(p, 2).dtype, t.multinomial(p[0], 3, replacement=True).shape,
                          t.multinomial(t.tensor([0.0, 1.0, 0.0]), 2, replacement=True),
                          t.multinomial(t.tensor([[0.0, 0.0, 1.0]]), 1)))(t.tensor(P)))
beh("poisson", registered("torch.poisson"),
    lambda t: (lambda r: (t.poisson(r).shape, t.poisson(r).dtype, t.poisson(t.zeros(3)),
                          bool((t.poisson(r) >= 0).all())))(t.full((2, 3), 4.0)))
beh("rand_like", registered("torch.rand_like", "torch.randn_like", "torch.randint_like"),
    lambda t: (lambda x, i: (t.rand_like(x).shape, t.rand_like(x).dtype, t.randn_like(x).dtype, t.randn_like(x, dtype=t.float64).dtype,
                             t.randint_like(i, 5).dtype, t.randint_like(x, 2, 3), t.randint_like(i, 0, 2).shape))(t.ones(2, 3), t.ones(4, dtype=t.int64)))
for _m, _args in {"uniform_": (-2.0, 3.0), "normal_": (1.0, 0.5), "random_": (0, 5), "exponential_": (2.0,),
                  "bernoulli_": (0.5,), "geometric_": (0.3,), "log_normal_": (1.0, 0.5), "cauchy_": (0.0, 2.0)}.items():
    # the same seed gives PyTorch's values (tests/adapter/torch/random has the full streams)
    beh(f"stream[Tensor.{_m}]", registered(f"torch.Tensor.{_m}", "torch.manual_seed"),
        lambda t, m=_m, a=_args: (t.manual_seed(9), getattr(t.empty(20), m)(*a))[1])
    beh(f"Tensor.{_m}", registered(f"torch.Tensor.{_m}"),
        lambda t, m=_m, a=_args: (lambda x: (getattr(x, m)(*a) is x, x.shape, x.dtype))(t.zeros(3, 4)))
beh("Tensor.uniform_[range]", registered("torch.Tensor.uniform_", "torch.Tensor.random_", "torch.Tensor.exponential_"),
    lambda t: (bool(((lambda u: (u >= -2) & (u < 3))(t.empty(100).uniform_(-2, 3))).all()),
               sorted(set(t.empty(200).random_(0, 3).tolist())), bool((t.empty(50).exponential_() > 0).all()),
               bool((t.empty(50, dtype=t.int64).random_(4) < 4).all())))


def _seeded(t, f):
    t.manual_seed(123)
    a = f(t)
    t.manual_seed(123)
    b = f(t)
    t.manual_seed(124)
    c = f(t)
    return bool(t.equal(a, b)), bool(t.equal(a, c))


_DRAWS = {
    "rand": lambda t: t.rand(16), "randn": lambda t: t.randn(16), "randint": lambda t: t.randint(0, 1000, (16,)),
    "randperm": lambda t: t.randperm(16), "normal": lambda t: t.normal(0.0, 1.0, (16,)),
    "bernoulli": lambda t: t.bernoulli(t.full((64,), 0.5)), "multinomial": lambda t: t.multinomial(t.ones(16), 8),
    "rand_like": lambda t: t.rand_like(t.ones(16)), "randn_like": lambda t: t.randn_like(t.ones(16)),
    "randint_like": lambda t: t.randint_like(t.ones(16), 1000), "poisson": lambda t: t.poisson(t.full((32,), 50.0)),
    "Tensor.uniform_": lambda t: t.empty(16).uniform_(), "Tensor.normal_": lambda t: t.empty(16).normal_(),
    "Tensor.random_": lambda t: t.empty(16).random_(0, 1000), "Tensor.exponential_": lambda t: t.empty(16).exponential_(),
    "Tensor.bernoulli_": lambda t: t.empty(64).bernoulli_(0.5),
}
for _k, _f in _DRAWS.items():
    beh(f"seeded[{_k}]", registered(f"torch.{_k}", "torch.manual_seed"), lambda t, f=_f: _seeded(t, f))
beh("generator", registered("torch.Generator", "torch.default_generator", "torch.initial_seed", "torch.seed"),
    lambda t: (lambda g, h: (g.manual_seed(7) is g, g.initial_seed(), t.equal(t.rand(5, generator=g.manual_seed(3)),
                                                                            t.rand(5, generator=h.manual_seed(3))),
                             t.manual_seed(11) is t.default_generator, t.initial_seed(), isinstance(t.seed(), int),
                             t.equal(t.randn(4, generator=g.manual_seed(1)), t.randn(4, generator=h.manual_seed(2)))))
    (t.Generator(), t.Generator()))
beh("rng_state", registered("torch.get_rng_state", "torch.set_rng_state"),
    lambda t: (lambda s: (s.dtype, t.equal(t.rand(4), (t.set_rng_state(s), t.rand(4))[1]) if False else None,
                          (lambda a: (t.set_rng_state(s), t.equal(a, t.rand(4)))[1])(t.rand(4))))(t.get_rng_state()))
beh("generator_state", registered("torch.Generator"),
    lambda t: (lambda g: (lambda s: (lambda a: (g.set_state(s), t.equal(a, t.rand(3, generator=g)))[1])(t.rand(3, generator=g)))
               (g.get_state()))(t.Generator().manual_seed(5)))
beh("cuda.manual_seed", registered("torch.cuda.manual_seed", "torch.cuda.manual_seed_all"),
    lambda t: (t.cuda.manual_seed(3), t.cuda.manual_seed_all(3)))

# --- dtypes ---------------------------------------------------------------------------------------------
_DTYPES = ["float16", "half", "bfloat16", "float32", "float", "float64", "double", "int8", "int16", "short", "int32", "int",
           "int64", "long", "uint8", "bool", "complex64", "complex128", "cfloat", "cdouble"]
for _d in _DTYPES:
    beh(f"dtype[{_d}]", registered(f"torch.{_d}", "torch.dtype"),
        lambda t, d=_d: (lambda dt: (repr(dt), str(dt), isinstance(dt, t.dtype), dt.is_floating_point, dt.is_complex,
                                     dt.is_signed, dt.itemsize, dt == getattr(t, d)))(getattr(t, d)))
beh("dtype[tensors]", registered("torch.float16", "torch.int8", "torch.uint8", "torch.complex64"),
    lambda t: (t.ones(2, dtype=t.float16), t.ones(2, dtype=t.int8) * 3, t.tensor([250], dtype=t.uint8), t.zeros(2, dtype=t.int16),
               t.tensor([1, 2]).to(t.complex64).dtype, t.tensor([1.0], dtype=t.complex128).dtype))
beh("default_dtype", registered("torch.get_default_dtype"), lambda t: (t.get_default_dtype(), t.tensor([1.0]).dtype))
beh("promote_types", registered("torch.promote_types"),
    lambda t: [t.promote_types(a, b) for a in (t.uint8, t.int8, t.int32, t.int64, t.float16, t.bfloat16, t.float32, t.bool, t.float64)
               for b in (t.uint8, t.int16, t.int64, t.float16, t.bfloat16, t.float64, t.bool, t.complex64)])
beh("result_type", registered("torch.result_type"),
    lambda t: (t.result_type(t.tensor([1]), 1.0), t.result_type(t.tensor([1], dtype=t.uint8), 300), t.result_type(t.tensor([True]), 1),
               t.result_type(t.tensor([1.0], dtype=t.float16), t.tensor(1.0, dtype=t.float64)), t.result_type(2, 3.0),
               t.result_type(t.tensor([1], dtype=t.int32), t.tensor(5)), t.result_type(t.tensor([1.0]), 1 + 2j)))
beh("can_cast", registered("torch.can_cast"),
    lambda t: [t.can_cast(a, b) for a in (t.bool, t.uint8, t.int64, t.float32, t.complex64)
               for b in (t.bool, t.int8, t.int64, t.float16, t.float64, t.complex128)])
beh("finfo", registered("torch.finfo"),
    lambda t: [(f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype)
               for f in (t.finfo(t.float32), t.finfo(t.float16), t.finfo(t.float64), t.finfo(t.bfloat16), t.finfo())])
beh("finfo[int]", registered("torch.finfo"), lambda t: t.finfo(t.int32))
beh("iinfo", registered("torch.iinfo"),
    lambda t: [(i.bits, i.min, i.max, i.dtype) for i in (t.iinfo(t.int8), t.iinfo(t.uint8), t.iinfo(t.int32), t.iinfo(t.int64))])
beh("is_floating_point", registered("torch.is_floating_point", "torch.is_complex", "torch.Tensor.is_floating_point",
                                    "torch.Tensor.is_complex"),
    lambda t: [(t.is_floating_point(x), t.is_complex(x), x.is_floating_point(), x.is_complex())
               for x in (t.ones(1), t.ones(1, dtype=t.int64), t.ones(1, dtype=t.float16), t.ones(1, dtype=t.bool),
                         t.ones(1, dtype=t.complex64))])

# --- constants, predicates, helpers ------------------------------------------------------------------------
beh("constants", registered("torch.pi", "torch.e", "torch.inf", "torch.nan"),
    lambda t: (t.pi, t.e, t.inf, -t.inf, math.isnan(t.nan), t.tensor([t.inf, t.pi]).isinf()))
beh("is_tensor", registered("torch.is_tensor", "torch.is_storage", "torch.numel", "torch.typename", "torch.is_nonzero"),
    lambda t: (t.is_tensor(t.ones(1)), t.is_tensor([1]), t.is_tensor(np.ones(1)), t.is_storage(t.ones(1)), t.numel(t.ones(2, 3)),
               t.typename(t.ones(2)), t.typename(t.ones(2, dtype=t.int64)), t.typename(3), t.is_nonzero(t.tensor([1.5])),
               t.is_nonzero(t.tensor(0))))
beh("is_nonzero[error]", registered("torch.is_nonzero"), lambda t: t.is_nonzero(t.ones(2)))
beh("legacy-constructors", registered("torch.Tensor", "torch.FloatTensor", "torch.DoubleTensor", "torch.LongTensor",
                                      "torch.IntTensor", "torch.BoolTensor", "torch.ByteTensor", "torch.CharTensor",
                                      "torch.ShortTensor"),
    lambda t: (t.Tensor([1, 2]), t.Tensor(2, 3).shape, t.Tensor(2, 3).dtype, t.FloatTensor([1, 2]), t.DoubleTensor([1.5]),
               t.LongTensor([1, 2]), t.IntTensor([3]), t.BoolTensor([True, False]), t.ByteTensor([1, 2]),
               t.CharTensor([-1, 2]), t.ShortTensor([7]), t.LongTensor(2, 3).shape,
               isinstance(t.ones(1, dtype=t.int64), t.LongTensor), isinstance(t.ones(1), t.LongTensor),
               isinstance(t.ones(1), t.Tensor), isinstance(t.ones(1, dtype=t.int64), t.Tensor)))
beh("Size", registered("torch.Size"),
    lambda t: (lambda s: (s, repr(s), s[0], s[1:], s.numel(), s + t.Size([4]), len(s), isinstance(s, tuple), s == (2, 3),
                          t.ones(2, 3).shape == s, tuple(s)))(t.Size([2, 3])))
beh("device", registered("torch.device"),
    lambda t: (str(t.device("cpu")), repr(t.device("cpu")), t.device("cuda:1").index, t.device("cuda", 0).type,
               t.device("cpu") == t.device("cpu"), t.device("cpu") == "cpu", str(t.device(t.device("cuda:0"))),
               t.device("cpu").index, hash(t.device("cpu")) == hash(t.device("cpu"))))
beh("device[bad]", registered("torch.device"), lambda t: t.device("gpu"))


def _compile(real, mt):
    """``torch.compile`` is documented partial (returns the model unchanged;
    graph mode is ``%%torch_on_ascend --mode graph``).  Real PyTorch's
    compile starts dynamo (seconds), so the comparison is of results: the
    compiled function computes what the plain one does, in both spellings."""
    f = lambda x: x * 2 + 1  # noqa: E731
    x = mt.tensor([1.0, 2.0])
    assert mt.compile(f) is f and mt.compile()(f) is f and mt.compile(f, mode="max-autotune") is f
    assert mt.equal(mt.compile(f)(x), f(x))


add("compile", registered("torch.compile"), _compile, kind="custom")
beh("settings", registered("torch.set_printoptions", "torch.set_num_threads", "torch.get_num_threads",
                           "torch.use_deterministic_algorithms", "torch.set_float32_matmul_precision",
                           "torch.get_float32_matmul_precision"),
    lambda t: (t.set_printoptions(precision=4), t.set_num_threads(t.get_num_threads()), isinstance(t.get_num_threads(), int),
               t.use_deterministic_algorithms(False), t.set_float32_matmul_precision("highest"),
               t.get_float32_matmul_precision()))
beh("set_float32_matmul_precision[bad]", registered("torch.set_float32_matmul_precision"),
    lambda t: (t.set_float32_matmul_precision("high"), t.get_float32_matmul_precision(),
               pytest.warns(UserWarning, t.set_float32_matmul_precision, "fast"), t.get_float32_matmul_precision(),
               t.set_float32_matmul_precision("highest")))

# --- functional extras -----------------------------------------------------------------------------------
add("softmax", registered("torch.softmax", "torch.log_softmax"),
    lambda t, x: (t.softmax(x, 1), t.log_softmax(x, 0), t.softmax(x, -1, dtype=t.float64), t.log_softmax(x, dim=1)), A)
for _n in ["relu_", "sigmoid_", "tanh_"]:
    add(f"torch.{_n}", registered(f"torch.{_n}"),
        lambda t, x, n=_n: (lambda y: (getattr(t, n)(y) is y, y)[1])(x.clone()), A)

# --- devices: torch.cuda, torch.accelerator, torch.backends (CPU machine: no accelerator) -----------------------------------
beh("cuda", registered(*[f"torch.cuda.{n}" for n in ("is_available", "device_count", "is_bf16_supported")]),
    lambda t: (t.cuda.is_available(), t.cuda.device_count()))
beh("cuda[no-op]", registered(*[f"torch.cuda.{n}" for n in ("synchronize", "empty_cache", "current_device", "set_device",
                                                              "memory_allocated", "max_memory_allocated", "memory_reserved",
                                                              "max_memory_reserved", "reset_peak_memory_stats",
                                                              "get_device_name", "get_device_capability", "device")]),
    lambda t: (t.cuda.empty_cache(),))


def _cuda_free(real, mt):
    """Without a GPU, PyTorch's memory/device queries need CUDA; msnb's
    answer for the MindSpore CPU device without failing (CUDA-written code
    runs).  Checked: the values are the no-accelerator answers."""
    c = mt.cuda
    assert c.is_available() is False and c.device_count() == 0 and c.is_bf16_supported() is False
    assert c.memory_allocated() == c.max_memory_allocated() == c.memory_reserved() == c.max_memory_reserved() == 0
    assert c.current_device() == 0 and c.get_device_name() == "cpu" and c.get_device_capability() == (0, 0)
    assert c.synchronize() is None and c.reset_peak_memory_stats() is None and c.set_device(0) is None
    with c.device(0):
        x = mt.ones(2).cuda()
    assert str(x.device) == "cpu"
    a = mt.accelerator
    assert a.is_available() is real.accelerator.is_available() is False
    assert a.current_accelerator() is None and real.accelerator.current_accelerator() is None
    assert a.device_count() == real.accelerator.device_count() == 0
    assert a.current_device_index() == 0 and a.set_device_index(0) is None and a.synchronize() is None
    assert a.current_device_idx() == 0 and a.set_device_idx(0) is None
    with a.device_index(0):
        assert a.current_device_index() == 0
    assert a.memory_allocated() == a.max_memory_allocated() == a.memory_reserved() == a.max_memory_reserved() == 0
    assert a.reset_peak_memory_stats() is None and a.empty_cache() is None and c.empty_cache() is None
    import os
    free, total = c.mem_get_info()
    assert 0 < free <= total == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert a.get_memory_info(0)[1] == total
    assert mt.backends.cudnn.is_available() is False and mt.backends.mps.is_available() is real.backends.mps.is_available()
    mt.backends.cudnn.benchmark = True
    mt.backends.cudnn.deterministic = True


add("cuda/accelerator", registered(*[f"torch.cuda.{n}" for n in ("memory_allocated", "max_memory_allocated", "memory_reserved",
                                                                    "max_memory_reserved", "current_device", "get_device_name",
                                                                    "get_device_capability", "synchronize", "set_device", "device",
                                                                    "reset_peak_memory_stats", "is_bf16_supported",
                                                                    "mem_get_info", "empty_cache")],
                                   *[f"torch.accelerator.{n}" for n in ("is_available", "current_accelerator", "device_count",
                                                                          "current_device_index", "set_device_index",
                                                                          "synchronize", "current_device_idx",
                                                                          "set_device_idx", "device_index",
                                                                          "memory_allocated", "max_memory_allocated",
                                                                          "memory_reserved", "max_memory_reserved",
                                                                          "reset_peak_memory_stats", "empty_cache",
                                                                          "get_memory_info")]),
    _cuda_free, kind="custom")


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_creation(c):
    run_case(c)
