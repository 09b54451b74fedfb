"""Bad arguments raise PyTorch's exception type (issue 12, point 7).

Each case is a call PyTorch refuses (found by replaying its OpInfo
``error_inputs`` through msnb: ``tests/adapter/opinfo/test_error_inputs.py``);
msnb must raise the same type.  The ``ok`` cases next to them are the
neighbouring valid calls, so that a check does not refuse too much.
"""

import numpy as np
import pytest

from .harness import case, run_case

CASES = []


def bad(id, names, fn):
    CASES.append(case(id, names, fn, kind="raises"))


def ok(id, names, fn):
    CASES.append(case(id, names, fn, kind="behaviour"))


X = np.arange(12, dtype=np.float32).reshape(3, 4)

# --- creation ----------------------------------------------------------------------------------
bad("arange step sign against the bounds", "torch.arange", lambda t: t.arange(0, -3, 2))
bad("arange negative step upwards", "torch.arange", lambda t: t.arange(0, 3, -2))
bad("arange infinite end", "torch.arange", lambda t: t.arange(0, float("inf"), 2))
bad("arange infinite start", "torch.arange", lambda t: t.arange(-float("inf"), 1, 2))
bad("arange nan bound", "torch.arange", lambda t: t.arange(float("nan"), 3))
bad("arange step truncating to 0 in out's int dtype", "torch.arange",
    lambda t: t.arange(0, 64, 0.5, out=t.empty(0, dtype=t.int64)))
bad("arange step truncating to 0 in an int dtype", "torch.arange", lambda t: t.arange(0, 3, 0.3, dtype=t.int64))
ok("arange empty and integral ranges", "torch.arange", lambda t: (
    t.arange(5, 5), t.arange(5, 5, -1), t.arange(3, 0, -1), t.arange(0, 3.5, 1, dtype=t.int64),
    t.arange(0, 3, out=t.empty(0)), t.arange(0, 3, 1, out=t.empty(0, dtype=t.int32))))
bad("eye negative n", "torch.eye", lambda t: t.eye(-1))
bad("eye negative m", "torch.eye", lambda t: t.eye(2, -3))
ok("eye of zero rows", "torch.eye", lambda t: (t.eye(0), t.eye(2, 0)))
bad("linspace negative steps", "torch.linspace", lambda t: t.linspace(0, 3, -1))
bad("linspace float steps", "torch.linspace", lambda t: t.linspace(0, 3, 1.0))
bad("logspace float steps", "torch.logspace", lambda t: t.logspace(0, 3, 1.0))
bad("logspace negative steps", "torch.logspace", lambda t: t.logspace(0, 3, -2))
ok("linspace and logspace steps", ("torch.linspace", "torch.logspace"), lambda t: (
    t.linspace(0, 3, 0), t.linspace(0, 3, 4), t.logspace(0, 2, 3)))

# --- comparison, reductions --------------------------------------------------------------------
bad("isclose negative rtol", "torch.isclose", lambda t: t.isclose(t.ones(2), t.ones(2), rtol=-0.4))
bad("isclose negative atol", "torch.isclose", lambda t: t.isclose(t.ones(2), t.ones(2), atol=-0.4))
bad("amax dim named twice", "torch.amax", lambda t: t.amax(t.tensor(X), (0, -2)))
bad("amin dim named twice", "torch.amin", lambda t: t.amin(t.tensor(X), (1, 1)))
bad("sum dim named twice", "torch.sum", lambda t: t.sum(t.tensor(X), (0, 0)))
ok("amax over distinct dims", "torch.amax", lambda t: (t.amax(t.tensor(X), (0, -1)), t.amax(t.tensor(X), (-1,))))
bad("diff negative order", "torch.diff", lambda t: t.diff(t.tensor(X), -1))
ok("diff order 0", "torch.diff", lambda t: t.diff(t.tensor(X), 0))
bad("renorm 0-d", "torch.renorm", lambda t: t.renorm(t.tensor(1.0), 0.5, 0, 1.0))
bad("renorm 1-d", "torch.renorm", lambda t: t.renorm(t.ones(3), 2, 0, 1.0))
bad("renorm non-positive p", "torch.renorm", lambda t: t.renorm(t.tensor(X), 0, 0, 1.0))
bad("renorm negative maxnorm", "torch.renorm", lambda t: t.renorm(t.tensor(X), 2, 0, -1.0))
bad("kthvalue k past the dimension", "torch.kthvalue", lambda t: t.kthvalue(t.tensor(X), 5, 0))
bad("kthvalue k 0", "torch.kthvalue", lambda t: t.kthvalue(t.tensor(X), 0, 1))
bad("kthvalue 0-d k 3", "torch.kthvalue", lambda t: t.kthvalue(t.tensor(2), 3))

# --- shapes ------------------------------------------------------------------------------------
bad("movedim repeated source", "torch.movedim", lambda t: t.movedim(t.ones(2, 3, 4), (0, -3), (1, 2)))
bad("movedim repeated destination", "torch.movedim", lambda t: t.movedim(t.ones(2, 3, 4), (1, 0), (0, -3)))
bad("movedim lists of other lengths", "torch.movedim", lambda t: t.movedim(t.ones(2, 3, 4), (0, 1), (1,)))
ok("movedim", "torch.movedim", lambda t: t.movedim(t.tensor(X.reshape(2, 3, 2)), (0, -1), (-1, 0)))
bad("narrow 0-d", "torch.narrow", lambda t: t.narrow(t.tensor(1.0), 0, 0, 1))
bad("narrow start past the end", "torch.narrow", lambda t: t.narrow(t.tensor(X), 1, 5, 0))
bad("narrow start before the start", "torch.narrow", lambda t: t.narrow(t.tensor(X), 1, -5, 1))
bad("narrow length past the end", "torch.narrow", lambda t: t.narrow(t.tensor(X), 1, 2, 3))
bad("narrow negative length", "torch.narrow", lambda t: t.narrow(t.tensor(X), 1, 0, -1))
bad("narrow start a 1-d tensor", "torch.narrow", lambda t: t.narrow(t.tensor(X), 1, t.tensor([1]), 1))
bad("narrow start a bool tensor", "torch.narrow", lambda t: t.narrow(t.tensor(X), 1, t.tensor(True), 1))
bad("narrow_copy start past the end", "torch.narrow_copy", lambda t: t.narrow_copy(t.tensor(X), 1, 5, 0))
bad("narrow_copy dim past the last", "torch.narrow_copy", lambda t: t.narrow_copy(t.tensor(X), 2, 0, 1))
bad("narrow_copy negative dim out of range", "torch.narrow_copy", lambda t: t.narrow_copy(t.tensor(X), -3, 0, 1))
ok("narrow_copy", "torch.narrow_copy", lambda t: (t.narrow_copy(t.tensor(X), 1, 1, 2), t.narrow_copy(t.tensor(X), -1, 0, 1)))
ok("narrow negative start, 0-d tensor start, empty", "torch.narrow", lambda t: (
    t.narrow(t.tensor(X), 1, -4, 2), t.narrow(t.tensor(X), 1, t.tensor(1), 2), t.narrow(t.tensor(X), 1, 4, 0)))
bad("diagonal dim1 out of range", "torch.diagonal", lambda t: t.diagonal(t.tensor(X), dim1=10000))
bad("diagonal dim2 out of range", "torch.diagonal", lambda t: t.diagonal(t.tensor(X), dim2=10000))
bad("diagonal_copy dim out of range", "torch.diagonal_copy", lambda t: t.diagonal_copy(t.tensor(X), 0, 10000))
bad("linalg.diagonal dim out of range", "torch.linalg.diagonal", lambda t: t.linalg.diagonal(t.tensor(X), dim2=5))
bad("diag_embed dim out of range", "torch.diag_embed", lambda t: t.diag_embed(t.tensor(X), dim1=10000))
bad("diag_embed identical dims", "torch.diag_embed", lambda t: t.diag_embed(t.tensor(X), dim1=0, dim2=-3))
ok("diagonal negative dims", ("torch.diagonal", "torch.diag_embed"), lambda t: (
    t.diagonal(t.tensor(X), 0, -1, -2), t.diag_embed(t.tensor(X), 0, -1, 0)))
bad("tril 1-d", "torch.tril", lambda t: t.tril(t.ones(4)))
bad("triu 1-d", "torch.triu", lambda t: t.triu(t.ones(4)))
bad("hsplit 0 sections", "torch.hsplit", lambda t: t.hsplit(t.ones(5, 5, 5), 0))
bad("vsplit 0 sections", "torch.vsplit", lambda t: t.vsplit(t.ones(5, 5, 5), 0))
bad("dsplit 0 sections", "torch.dsplit", lambda t: t.dsplit(t.ones(5, 5, 5), 0))

# --- linear algebra, negation, sampling -----------------------------------------------------------
bad("dot of two dtypes", "torch.dot", lambda t: t.dot(t.ones(3), t.ones(3, dtype=t.float64)))
bad("vdot of two dtypes", "torch.vdot", lambda t: t.vdot(t.ones(3), t.ones(3, dtype=t.float16)))
bad("linalg.cross size-1 dimension", "torch.linalg.cross", lambda t: t.linalg.cross(t.ones(5, 3), t.ones(5, 1)))
bad("cross size-1 dimension", "torch.cross", lambda t: t.cross(t.ones(5, 1), t.ones(5, 3), dim=1))
ok("linalg.cross broadcasting other dims", "torch.linalg.cross", lambda t: t.linalg.cross(
    t.tensor(X[:1, :3]), t.tensor(X[:, 1:])))
bad("neg of bool", "torch.neg", lambda t: t.neg(t.tensor([True, False])))
bad("unary minus of bool", "torch.Tensor.neg", lambda t: -t.tensor([True]))
bad("multinomial into a non-int64 out", "torch.multinomial",
    lambda t: t.multinomial(t.ones(1, 2), 2, out=t.zeros(1, 2, dtype=t.float64)))

# --- Python numbers where PyTorch's argument parser wants a Tensor ----------------------------------
O = np.ones(3, dtype=np.float32)
for n in ("fmax", "fmin", "maximum", "minimum", "ldexp", "logaddexp", "logaddexp2", "hypot", "atan2", "nextafter",
          "logical_and", "logical_or", "logical_xor", "isclose", "heaviside"):
    bad(f"{n} with a number second", f"torch.{n}", lambda t, n=n: getattr(t, n)(t.tensor(O), 2))
    bad(f"{n} with a number first", f"torch.{n}", lambda t, n=n: getattr(t, n)(2, t.tensor(O)))
for n in ("gcd", "lcm"):
    bad(f"{n} with a number second", f"torch.{n}", lambda t, n=n: getattr(t, n)(t.tensor([4, 6]), 2))
for n in ("eq", "ne", "ge", "gt", "le", "lt", "copysign", "clamp_max", "clamp_min", "fmod", "rsub", "max", "min"):
    bad(f"{n} with a number first", f"torch.{n}", lambda t, n=n: getattr(t, n)(2, t.tensor(O)))
    bad(f"{n} with two numbers", f"torch.{n}", lambda t, n=n: getattr(t, n)(2, 3))
ok("comparisons with a number second", ("torch.eq", "torch.copysign", "torch.fmod", "torch.clamp_max"),
   lambda t: (t.eq(t.tensor(O), 1), t.copysign(t.tensor(O), -2), t.fmod(t.tensor(O), 2), t.clamp_max(t.tensor(O), 0)))
for n in ("remainder", "pow", "float_power", "xlogy"):
    bad(f"{n} with two numbers", f"torch.{n}", lambda t, n=n: getattr(t, n)(2, 3))
ok("a number on one side", ("torch.remainder", "torch.pow", "torch.float_power", "torch.xlogy"), lambda t: (
    t.remainder(5, t.tensor(O * 2)), t.pow(2, t.tensor(O)), t.float_power(t.tensor(O), 2), t.xlogy(2, t.tensor(O))))
bad("bitwise_left_shift of two numbers", "torch.bitwise_left_shift", lambda t: t.bitwise_left_shift(2, 3))
for n in ("xlog1py", "xlogy", "zeta", "chebyshev_polynomial_t", "hermite_polynomial_h", "legendre_polynomial_p"):
    bad(f"special.{n} with two numbers", f"torch.special.{n}", lambda t, n=n: getattr(t.special, n)(2, 3))
ok("special functions with one number", ("torch.special.zeta", "torch.special.chebyshev_polynomial_t"),
   lambda t: (t.special.zeta(t.tensor(O * 2), 2), t.special.chebyshev_polynomial_t(t.tensor(O / 2), 3)))

# --- indexing, statistics, fft --------------------------------------------------------------------
IDX = np.zeros((2, 2), dtype=np.int64)
bad("scatter src of another dtype", "torch.scatter",
    lambda t: t.scatter(t.ones(3, 5, dtype=t.float64), 0, t.tensor(IDX), t.ones(2, 5)))
bad("scatter_add src of another dtype", "torch.scatter_add",
    lambda t: t.scatter_add(t.ones(3, 5, dtype=t.float64), 0, t.tensor(IDX), t.ones(2, 5)))
bad("scatter index of another rank", "torch.scatter", lambda t: t.scatter(t.ones(3, 5, 3), 0, t.tensor(IDX), t.ones(2, 5)))
bad("scatter_add index of another rank", "torch.scatter_add",
    lambda t: t.scatter_add(t.ones(3, 5, 3), 0, t.tensor(IDX), t.ones(2, 5)))
bad("gather index of lower rank", "torch.gather", lambda t: t.gather(t.ones(2, 2), 1, t.zeros(2, dtype=t.int64)))
bad("gather index of higher rank", "torch.gather", lambda t: t.gather(t.ones(2), 0, t.tensor(IDX)))
ok("scatter of a number, scatter_add of one dtype", ("torch.scatter", "torch.scatter_add"), lambda t: (
    t.scatter(t.ones(3, 5), 0, t.tensor(IDX), 2.0), t.scatter_add(t.ones(3, 5), 0, t.tensor(IDX), t.ones(2, 5))))
bad("index_add source of another shape", "torch.index_add",
    lambda t: t.index_add(t.ones(3, 2), 0, t.tensor([0, 2]), t.tensor([2.0, 4.0])))
bad("index_add more source rows than indices", "torch.index_add",
    lambda t: t.index_add(t.ones(3, 2), 0, t.tensor([0, 2]), t.ones(3, 2)))
ok("index_add", "torch.index_add", lambda t: t.index_add(t.ones(3, 2), 0, t.tensor([0, 2]), t.ones(2, 2)))
bad("cov 2-d fweights", "torch.cov", lambda t: t.cov(t.ones(5), fweights=t.ones(5, 5, dtype=t.int64)))
bad("cov 2-d aweights", "torch.cov", lambda t: t.cov(t.ones(5), aweights=t.ones(5, 5)))
bad("cov float fweights", "torch.cov", lambda t: t.cov(t.ones(5), fweights=t.ones(5)))
bad("cov integral aweights", "torch.cov", lambda t: t.cov(t.ones(5), aweights=t.ones(5, dtype=t.int64)))
bad("cov fweights of another length", "torch.cov", lambda t: t.cov(t.ones(5), fweights=t.ones(1, dtype=t.int64)))
bad("cov aweights of another length", "torch.cov", lambda t: t.cov(t.ones(5), aweights=t.ones(2)))
bad("cov negative fweights", "torch.cov", lambda t: t.cov(t.ones(5), fweights=-t.ones(5, dtype=t.int64)))
bad("cov negative aweights", "torch.cov", lambda t: t.cov(t.ones(5), aweights=-t.ones(5)))
ok("cov with both weights", "torch.cov", lambda t: t.cov(t.tensor(X), fweights=t.tensor([1, 2, 0, 1]),
                                                         aweights=t.tensor([0.5, 1.0, 2.0, 1.0])))
for n in ("fft", "ifft", "rfft", "hfft", "ihfft"):
    bad(f"fft.{n} of a 0-d tensor", f"torch.fft.{n}", lambda t, n=n: getattr(t.fft, n)(t.tensor(1.0)))
for n in ("fft2", "fftn", "rfft2", "rfftn", "ifft2", "ifftn", "irfftn", "hfftn", "ihfft2"):
    bad(f"fft.{n} of a 0-d tensor along dim 0", f"torch.fft.{n}",
        lambda t, n=n: getattr(t.fft, n)(t.tensor(1.0), dim=(0,)))
ok("fft.fftn of a 0-d tensor over no dims", "torch.fft.fftn", lambda t: t.fft.fftn(t.tensor(1.0)))

# --- cat and stacking, assorted argument checks -----------------------------------------------------
bad("cat of an empty list", "torch.cat", lambda t: t.cat([], dim=1))
bad("cat with None", "torch.cat", lambda t: t.cat([t.ones(2), None]))
bad("cat of a Tensor", "torch.cat", lambda t: t.cat(t.ones(2, 3)))
bad("cat of 0-d tensors", "torch.cat", lambda t: t.cat([t.tensor(1.0), t.tensor(2.0)]))
bad("cat of a 0-d tensor second", "torch.cat", lambda t: t.cat([t.ones(2), t.tensor(2.0)]))
ok("cat skipping legacy empty 1-d tensors", "torch.cat", lambda t: t.cat([t.tensor(X), t.ones(0)]))
bad("hstack of nothing", "torch.hstack", lambda t: t.hstack([]))
bad("vstack of nothing", "torch.vstack", lambda t: t.vstack([]))
bad("gradient dim named twice", "torch.gradient", lambda t: t.gradient(t.tensor(X), dim=(0, -2)))
bad("histogramdd bins of another length", "torch.histogramdd", lambda t: t.histogramdd(t.ones(5, 6), [1, 1]))
bad("ormqr 0-d input", "torch.ormqr", lambda t: t.ormqr(t.tensor(1.0), t.tensor(1.0), t.tensor(1.0)))
bad("ormqr 1-d other", "torch.ormqr", lambda t: t.ormqr(t.ones(3, 3), t.ones(3), t.ones(3)))
bad("native_layer_norm empty normalized_shape", "torch.native_layer_norm",
    lambda t: t.native_layer_norm(t.ones(1, 2, 3), [], None, None, 1e-5))
bad("complex into an out of another dtype", "torch.complex", lambda t: t.complex(
    t.ones(2, dtype=t.float64), t.ones(2, dtype=t.float64), out=t.empty(2, dtype=t.complex64)))
bad("complex of a number", "torch.complex", lambda t: t.complex(2, t.ones(2)))
bad("polar of a number", "torch.polar", lambda t: t.polar(t.ones(2), 2))
bad("cauchy_ sigma 0", "torch.Tensor.cauchy_", lambda t: t.ones(10).cauchy_(0, 0))
bad("masked_fill complex into float", "torch.masked_fill",
    lambda t: t.masked_fill(t.ones(2), t.tensor(False), 1j))
bad("masked_fill complex tensor into int64", "torch.masked_fill",
    lambda t: t.masked_fill(t.ones(2, dtype=t.int64), t.tensor(False), t.tensor(1j)))
ok("masked_fill complex into complex", "torch.masked_fill",
   lambda t: t.masked_fill(t.ones(2, dtype=t.complex64), t.tensor([True, False]), 1j))
for n in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    bad(f"{n} of two numbers", f"torch.{n}", lambda t, n=n: getattr(t, n)(2, 3))
    ok(f"{n} of a number and a tensor", f"torch.{n}", lambda t, n=n: getattr(t, n)(6, t.tensor([3, 5])))

# --- out= of another dtype; out= written -------------------------------------------------------------
bad("amax into an int32 out", "torch.amax", lambda t: t.amax(t.ones(4, 4), 0, out=t.empty(4, dtype=t.int32)))
bad("amin into a float64 out", "torch.amin", lambda t: t.amin(t.ones(4, 4), 0, out=t.empty(4, dtype=t.float64)))
bad("aminmax into a float64 max", "torch.aminmax",
    lambda t: t.aminmax(t.ones(4, 4), dim=0, out=(t.empty(4), t.empty(4, dtype=t.float64))))
bad("gather into a float64 out", "torch.gather", lambda t: t.gather(
    t.ones(4, 4), 1, t.zeros(4, 4, dtype=t.int64), out=t.empty(4, 4, dtype=t.float64)))
bad("dstack of nothing", "torch.dstack", lambda t: t.dstack([]))
bad("column_stack of nothing", "torch.column_stack", lambda t: t.column_stack([]))


def _written(fn):
    """``fn(lib, out)``'s result is ``out``, resized and filled: the pair (identity, value)."""
    return lambda t: (lambda o: (fn(t, o) is o, o))(t.empty(0))


ok("amax writes out", "torch.amax", _written(lambda t, o: t.amax(t.tensor(X), 0, out=o)))
ok("amin writes out", "torch.amin", _written(lambda t, o: t.amin(t.tensor(X), 1, out=o)))
ok("gather writes out", "torch.gather", _written(lambda t, o: t.gather(t.tensor(X), 1, t.tensor(IDX[:, :1]), out=o)))
ok("dstack writes out", "torch.dstack", _written(lambda t, o: t.dstack([t.ones(2), t.zeros(2)], out=o)))
ok("column_stack writes out", "torch.column_stack",
   _written(lambda t, o: t.column_stack([t.ones(2), t.zeros(2)], out=o)))
ok("aminmax writes out", "torch.aminmax", lambda t: (lambda a, b: (
    tuple(t.aminmax(t.tensor(X), dim=0, out=(a, b))), a, b))(t.empty(4), t.empty(4)))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_bad_arguments_raise_like_pytorch(c):
    run_case(c)


def test_multinomial_writes_its_out_argument():
    import msnb.adapter.torch as mt
    out = mt.zeros(2, dtype=mt.int64)
    res = mt.multinomial(mt.tensor([0.0, 1.0]), 2, True, out=out)
    assert res is out and out.tolist() == [1, 1]
