"""PyTorch's in-place variants (``x.acosh_()``, ``x.cumsum_(0)``), the aliases
(``torch.arccos``, ``x.fix()``) and the integer-only methods, against real
PyTorch: each in-place form returns ``x`` itself with PyTorch's values and
dtype, and gradients flow through a derived in-place op as in PyTorch."""

import numpy as np
import pytest

from .harness import REGISTRY, case, mt, real, run_case

DATA = np.array([0.25, 0.5, 0.75], dtype=np.float32)
OTHER = np.array([0.5, 1.0, 2.0], dtype=np.float32)
INTS = np.array([12, 18, 7], dtype=np.int64)
#: argument lists tried in turn on real PyTorch (the first it accepts is compared)
ARGS = [(), (0,), (0.5,), ("other",), (1,)]


def _args(lib, args):
    return [lib.tensor(OTHER) if a == "other" else a for a in args]


def _inplace(name, args):
    def check(real_, mt_):
        for lib in (real_, mt_):
            lib.manual_seed(0)
        r, m = real_.tensor(DATA), mt_.tensor(DATA)
        rr = getattr(r, name)(*_args(real_, args))
        mr = getattr(m, name)(*_args(mt_, args))
        assert rr is r and mr is m, name
        assert str(m.dtype) == str(r.dtype), name
        np.testing.assert_allclose(m.detach().numpy(), r.detach().numpy(), rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=name)
    return check


def _accepted_args(name):
    """The first argument list real PyTorch takes for ``x.<name>(...)`` in place on float data, or None."""
    for args in ARGS:
        try:
            t = real.tensor(DATA)
            if getattr(t, name)(*_args(real, args)) is t:
                return args
        except Exception:  # noqa: BLE001 - PyTorch refuses these arguments: try the next list
            continue
    return None


CASES = []
for _q in sorted(REGISTRY):
    _n = _q.rpartition(".")[2]
    if _q.startswith("torch.Tensor.") and _n.endswith("_") and not _n.startswith("_"):
        _a = _accepted_args(_n)
        if _a is not None:
            CASES.append(case(_n, _q, _inplace(_n, _a), kind="custom"))

for _name, _fn, _arrays in [
    ("arccos", lambda t, x: t.arccos(x), (DATA,)), ("arcsin", lambda t, x: t.arcsin(x), (DATA,)),
    ("arctan", lambda t, x: t.arctan(x), (DATA,)), ("arccosh", lambda t, x: t.arccosh(x + 1), (DATA,)),
    ("arcsinh", lambda t, x: t.arcsinh(x), (DATA,)), ("arctanh", lambda t, x: t.arctanh(x), (DATA,)),
    ("arctan2", lambda t, x, y: t.arctan2(x, y), (DATA, OTHER)), ("fix", lambda t, x: t.fix(x * 3 - 1), (DATA,)),
    ("row_stack", lambda t, x, y: t.row_stack((x, y)), (DATA, OTHER)),
    ("detach_copy", lambda t, x: t.detach_copy(x.detach()), (DATA,)),
]:
    CASES.append(case(f"torch.{_name}", tuple(n for n in (f"torch.{_name}", f"torch.Tensor.{_name}")
                                              if n in REGISTRY), _fn, *_arrays))
CASES += [
    case("Tensor.arccos method", "torch.Tensor.arccos", lambda t, x: x.arccos(), DATA),
    case("Tensor.arcsin method", "torch.Tensor.arcsin", lambda t, x: x.arcsin(), DATA),
    case("Tensor.arctan method", "torch.Tensor.arctan", lambda t, x: x.arctan(), DATA),
    case("Tensor.arccosh method", "torch.Tensor.arccosh", lambda t, x: (x + 1).arccosh(), DATA),
    case("Tensor.arcsinh method", "torch.Tensor.arcsinh", lambda t, x: x.arcsinh(), DATA),
    case("Tensor.arctanh method", "torch.Tensor.arctanh", lambda t, x: x.arctanh(), DATA),
    case("Tensor.arctan2 method", "torch.Tensor.arctan2", lambda t, x, y: x.arctan2(y), DATA, OTHER),
    case("Tensor.fix method", "torch.Tensor.fix", lambda t, x: (x * 3 - 1).fix(), DATA),
    case("gcd/lcm", ("torch.Tensor.gcd", "torch.Tensor.lcm", "torch.Tensor.gcd_", "torch.Tensor.lcm_"),
         lambda t, a: (a.gcd(a.flip(0)), a.lcm(a.flip(0)), a.clone().gcd_(a.flip(0)), a.clone().lcm_(a.flip(0))),
         INTS),
    case("shifts", ("torch.Tensor.bitwise_left_shift", "torch.Tensor.bitwise_right_shift",
                    "torch.Tensor.bitwise_left_shift_", "torch.Tensor.bitwise_right_shift_"),
         lambda t, a: (a.bitwise_left_shift(2), a.bitwise_right_shift(1), a.clone().bitwise_left_shift_(1),
                       a.clone().bitwise_right_shift_(2)), INTS),
    case("index_copy_/index_fill_", ("torch.Tensor.index_copy_", "torch.Tensor.index_fill_"),
         lambda t, x, y: (x.clone().index_copy_(0, t.tensor([2, 0]), y[:2]), x.clone().index_fill_(0, t.tensor([1]), -1.0)),
         DATA, OTHER),
    case("put_/masked_scatter_", ("torch.Tensor.put_", "torch.Tensor.masked_scatter_"),
         lambda t, x, y: (x.clone().put_(t.tensor([0, 2]), y[:2]), x.clone().masked_scatter_(x > 0.4, y)), DATA, OTHER),
    case("swapaxes_/swapdims_", ("torch.Tensor.swapaxes_", "torch.Tensor.swapdims_"),
         lambda t, x: (x.reshape(3, 1).clone().swapaxes_(0, 1), x.reshape(1, 3).clone().swapdims_(0, 1)), DATA,
         grad=False),
    case("resize_as_", "torch.Tensor.resize_as_", lambda t, x, y: x.clone().resize_as_(y), DATA, OTHER, grad=False),
    case("scatter_reduce_/index_reduce_", ("torch.Tensor.scatter_reduce_", "torch.Tensor.index_reduce_"),
         lambda t, x, y: (x.clone().scatter_reduce_(0, t.tensor([0, 0, 1]), y, "sum"),
                          x.clone().index_reduce_(0, t.tensor([0, 0, 2]), y, "prod")), DATA, OTHER, grad=False),
    case("polygamma_/mvlgamma_", ("torch.Tensor.polygamma_", "torch.Tensor.mvlgamma_"),
         lambda t, x: (x.clone().polygamma_(1), (x + 2).mvlgamma_(2)), DATA, grad=False),
    case("addmv_/addr_/addbmm_", ("torch.Tensor.addmv_", "torch.Tensor.addr_", "torch.Tensor.addbmm_"),
         lambda t, x, y: (x.clone().addmv_(t.ones(3, 3) * y, x), t.ones(3, 3).addr_(x, y),
                          t.ones(3, 3).addbmm_(t.ones(2, 3, 1) * x.reshape(1, 3, 1), t.ones(2, 1, 3) * y)),
         DATA, OTHER),
    case("as_strided_/renorm_", ("torch.Tensor.as_strided_", "torch.Tensor.renorm_"),
         lambda t, x: (t.arange(6.0).as_strided_((2, 2), (1, 2)), (x.reshape(3, 1) * 4).renorm_(2, 0, 1.0)),
         DATA, grad=False),
    case("is_shared", "torch.Tensor.is_shared", lambda t, x: t.tensor(x.is_shared()), DATA, grad=False),
    case("set_default_dtype", "torch.set_default_dtype",
         lambda t, x: (t.set_default_dtype(t.float64), t.tensor([1.5]), t.set_default_dtype(t.float32))[1], DATA,
         grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_inplace_variants_and_aliases(c):
    run_case(c)


def test_many_inplace_variants_are_compared():
    assert sum(c.kind == "custom" for c in CASES) > 100


@pytest.mark.parametrize("name", ["acosh_", "cumsum_", "clamp_min_", "lgamma_"])
def test_derived_variants_refuse_leaves_like_pytorch(name):
    args = (0,) if name == "cumsum_" else (0.5,) if name == "clamp_min_" else ()
    for lib in (real, mt):
        w = lib.tensor(DATA, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            getattr(w, name)(*args)


def test_gradient_flows_through_a_derived_inplace_op():
    grads = []
    for lib in (real, mt):
        y = lib.tensor([1.5, 2.0], requires_grad=True)
        z = y * 2
        z.cumsum_(0)
        (z * lib.tensor([1.0, 3.0])).sum().backward()
        grads.append(y.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])
