"""Differential tests: elementwise ops, comparisons, logical/bitwise ops and
their in-place and operator spellings, against real PyTorch (values, dtypes,
shapes, gradients), including type promotion and broadcasting."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import case, registered, run_case

rng = np.random.default_rng(1)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
ROW = rng.standard_normal((4,)).astype(np.float32)
POS = (rng.random((3, 4)) + 0.5).astype(np.float32)
POS2 = (rng.random((3, 4)) + 0.5).astype(np.float32)
UNIT = (rng.random((3, 4)) * 1.6 - 0.8).astype(np.float32)
I = rng.integers(-5, 6, (3, 4)).astype(np.int64)
IPOS = rng.integers(1, 5, (3, 4)).astype(np.int64)
BOOL = rng.random((3, 4)) > 0.5
BOOL2 = rng.random((3, 4)) > 0.5
F64 = rng.standard_normal((3, 4))
F16 = rng.standard_normal((3, 4)).astype(np.float16)
I32 = rng.integers(-5, 6, (3, 4)).astype(np.int32)
U8 = rng.integers(0, 9, (3, 4)).astype(np.uint8)
SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3.0], dtype=np.float32)

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# --- unary ops: torch.f(x), x.f(), x.clone().f_() ------------------------------------------
UNARY = {  # name: input
    "abs": A, "absolute": A, "neg": A, "negative": A, "exp": A, "exp2": A, "log": POS, "log2": POS,
    "log10": POS, "log1p": POS, "expm1": A, "sqrt": POS, "rsqrt": POS, "square": A, "sin": A, "cos": A,
    "tan": UNIT, "tanh": A, "sigmoid": A, "relu": A, "floor": A * 3, "ceil": A * 3, "round": A * 3,
    "trunc": A * 3, "frac": A * 3, "sign": A, "reciprocal": POS, "erf": A, "asin": UNIT, "acos": UNIT,
    "atan": A, "sinh": A, "cosh": A, "positive": A,
}
for _n, _x in UNARY.items():
    add(f"torch.{_n}", registered(f"torch.{_n}"), lambda t, x, n=_n: getattr(t, n)(x), _x)
    add(f"Tensor.{_n}", registered(f"torch.Tensor.{_n}"), lambda t, x, n=_n: getattr(x, n)(), _x)
    if f"torch.Tensor.{_n}_" in registered(f"torch.Tensor.{_n}_"):
        add(f"Tensor.{_n}_", (f"torch.Tensor.{_n}_",), (f"{_n}_", lambda t: ()), _x, kind="inplace")

# integer / bool inputs: promotion to the default float dtype, or keep the integer dtype
for _n in ["abs", "neg", "exp", "log", "sqrt", "sin", "sigmoid", "relu", "floor", "ceil", "round",
           "trunc", "sign", "reciprocal", "erf", "square", "exp2", "log2", "atan", "expm1", "rsqrt"]:
    add(f"torch.{_n}[int]", registered(f"torch.{_n}"), lambda t, x, n=_n: getattr(t, n)(x), IPOS)
# MindSpore's CPU tanh kernel is accurate to ~2e-5 near +-1 (the registry note on torch.tanh says so)
add("torch.tanh[int]", registered("torch.tanh"), lambda t, x: t.tanh(x), IPOS, rtol=3e-5)
for _n in ["exp", "sqrt", "abs", "neg", "sigmoid", "round"]:
    add(f"torch.{_n}[f64]", registered(f"torch.{_n}"), lambda t, x, n=_n: getattr(t, n)(x), np.abs(F64) + 0.1)
    add(f"torch.{_n}[f16]", registered(f"torch.{_n}"), lambda t, x, n=_n: getattr(t, n)(x),
        np.abs(F16) + np.float16(0.1), rtol=2e-3, atol=2e-3)
add("torch.round[decimals]", registered("torch.round"), lambda t, x: t.round(x * 10, decimals=1), A)
add("torch.sqrt[out]", registered("torch.sqrt"), lambda t, x: (lambda o: (t.sqrt(x, out=o), o)[1])(t.empty(3, 4)),
    POS, grad=False)

# special values
# relu is left out: MindSpore's relu kernel maps NaN to 0 (the registry note on torch.relu says so)
for _n in ["isnan", "isinf", "isfinite", "signbit", "nan_to_num", "abs", "sign", "floor", "exp",
           "sigmoid", "tanh", "round", "trunc", "frac", "neg"]:
    add(f"torch.{_n}[special]", registered(f"torch.{_n}", f"torch.Tensor.{_n}"),
        lambda t, x, n=_n: (getattr(t, n)(x), getattr(x, n)()), SPECIAL, grad=False)
add("torch.nan_to_num[args]", registered("torch.nan_to_num"),
    lambda t, x: t.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0), SPECIAL, grad=False)
add("Tensor.nan_to_num_", registered("torch.Tensor.nan_to_num_"), ("nan_to_num_", lambda t: (0.5,)), SPECIAL,
    kind="inplace", grad=False)
add("torch.isnan[int]", registered("torch.isnan", "torch.isinf", "torch.isfinite"),
    lambda t, x: (t.isnan(x), t.isinf(x), t.isfinite(x)), I)
add("torch.nan_to_num[grad]", registered("torch.nan_to_num", "torch.signbit"),
    lambda t, x: (t.nan_to_num(x) * 2, t.signbit(x)), A)

# --- binary ops ------------------------------------------------------------------------------
BINARY = {  # name: (a, b)
    "add": (A, ROW), "sub": (A, ROW), "mul": (A, ROW), "div": (A, POS), "true_divide": (A, POS),
    "divide": (A, POS), "multiply": (A, ROW), "subtract": (A, ROW), "floor_divide": (A * 3, POS),
    "remainder": (A * 3, POS), "fmod": (A * 3, POS), "pow": (POS, A), "atan2": (A, B), "maximum": (A, B),
    "minimum": (A, B), "hypot": (A, B), "logaddexp": (A, B), "xlogy": (POS, POS2), "float_power": (POS, A),
}
for _n, (_a, _b) in BINARY.items():
    g = _n not in ("floor_divide",)
    add(f"torch.{_n}", registered(f"torch.{_n}"), lambda t, a, b, n=_n: getattr(t, n)(a, b), _a, _b, grad=g)
    add(f"Tensor.{_n}", registered(f"torch.Tensor.{_n}"), lambda t, a, b, n=_n: getattr(a, n)(b), _a, _b, grad=g)
    if _n != "float_power" and registered(f"torch.Tensor.{_n}_"):
        add(f"Tensor.{_n}_", (f"torch.Tensor.{_n}_",), (f"{_n}_", lambda t, b: (b,)), _a, _b, kind="inplace",
            grad=g)
# float_power works in float64: in place only into a float64 tensor
add("Tensor.float_power_", registered("torch.Tensor.float_power_"), ("float_power_", lambda t, b: (b,)),
    np.abs(F64) + 0.5, F64, kind="inplace")
add("torch.float_power[scalar]", registered("torch.float_power"), lambda t, a: t.float_power(a, 2), POS)

# integer arithmetic (division rounding conventions, sign of remainder)
for _n in ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "maximum", "minimum", "pow",
           "atan2", "true_divide"]:
    _b = IPOS if _n != "pow" else np.abs(I) % 3
    _a = I if _n != "pow" else I
    add(f"torch.{_n}[int]", registered(f"torch.{_n}"), lambda t, a, b, n=_n: getattr(t, n)(a, b), _a, _b)
for _mode in ["trunc", "floor"]:
    add(f"torch.div[{_mode}]", registered("torch.div"), lambda t, a, b, m=_mode: t.div(a, b, rounding_mode=m),
        A * 5, POS, grad=False)
    add(f"torch.div[{_mode},int]", registered("torch.div"), lambda t, a, b, m=_mode: t.div(a, b, rounding_mode=m),
        I * 3, -IPOS)
    add(f"Tensor.div_[{_mode}]", registered("torch.Tensor.div_"), ("div_", lambda t, b, m=_mode: (b,)), A * 5, POS,
        kind="inplace", grad=False)
add("torch.add[alpha]", registered("torch.add", "torch.sub"),
    lambda t, a, b: (t.add(a, b, alpha=2), t.sub(a, b, alpha=0.5)), A, B)
add("torch.add[out]", registered("torch.add"), lambda t, a, b: (lambda o: (t.add(a, b, out=o), o)[1])(t.empty(0)),
    A, B, grad=False)
add("torch.pow[scalar-base]", registered("torch.pow"), lambda t, x: t.pow(2.0, x), A)
add("torch.pow[scalar-exp]", registered("torch.pow"), lambda t, x: (t.pow(x, 2), t.pow(x, 0.5), t.pow(x, -1)), POS)
add("torch.pow[int-scalar]", registered("torch.pow"), lambda t, x: (t.pow(x, 2), t.pow(x, 2.0)), I)
add("torch.remainder[neg]", registered("torch.remainder", "torch.fmod"),
    lambda t, a, b: (t.remainder(a, -b), t.fmod(a, -b), t.remainder(a, 1.5), t.fmod(a, 1.5)), A * 3, POS)
add("torch.remainder[int-neg]", registered("torch.remainder", "torch.fmod", "torch.floor_divide"),
    lambda t, a, b: (t.remainder(a, -b), t.fmod(a, -b), t.floor_divide(a, -b), t.remainder(a, 3)), I, IPOS)
add("torch.maximum[ties]", registered("torch.maximum", "torch.minimum"),
    lambda t, a, b: (t.maximum(a, b), t.minimum(a, b)), np.array([1.0, 2.0, 3.0], np.float32),
    np.array([1.0, 1.0, 4.0], np.float32))

# --- promotion across dtypes -----------------------------------------------------------------
DTYPED = {"f32": A, "f64": F64, "f16": F16, "i64": I, "i32": I32, "u8": U8, "bool": BOOL}
for (_ka, _a) in DTYPED.items():
    for (_kb, _b) in DTYPED.items():
        if _ka >= _kb:
            continue
        tol = dict(rtol=2e-3, atol=2e-3) if "f16" in (_ka, _kb) else {}
        add(f"promote[{_ka}+{_kb}]", registered("torch.add", "torch.mul"),
            lambda t, a, b: (a + b if not (a.dtype == t.bool and b.dtype == t.bool) else a | b, a * b, a > b),
            _a, _b, grad=False, **tol)
for _k, _a in DTYPED.items():
    tol = dict(rtol=2e-3, atol=2e-3) if _k == "f16" else {}
    add(f"scalars[{_k}]", registered("torch.add", "torch.mul", "torch.div", "torch.sub"),
        lambda t, a: (a + 1, a * 2.5, a / 2, 3 - a if a.dtype != t.bool else a * True, a + True, t.add(a, 1.5),
                      a * t.tensor(2.0), a + t.tensor(3)),
        _a, grad=False, **tol)
add("promote[0d-tensor]", registered("torch.add", "torch.result_type"),
    lambda t, a: (a.half() + t.tensor(2.0, dtype=t.float64), a.int() * t.tensor(1.5), a.half() + t.tensor([1.0]),
                  t.result_type(a.int(), 2.0), t.result_type(a, t.tensor(1, dtype=t.float64))), A, grad=False)

# --- comparisons -------------------------------------------------------------------------------
CMP = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"]
_AB = np.round(A * 2).astype(np.float32)
_BB = np.round(B * 2).astype(np.float32)
for _n in CMP:
    add(f"torch.{_n}", registered(f"torch.{_n}", f"torch.Tensor.{_n}"),
        lambda t, a, b, n=_n: (getattr(t, n)(a, b), getattr(a, n)(b), getattr(t, n)(a, 0.5),
                               getattr(t, n)(a, b[0])), _AB, _BB)
    if registered(f"torch.Tensor.{_n}_"):
        add(f"Tensor.{_n}_", (f"torch.Tensor.{_n}_",), (f"{_n}_", lambda t, b: (b,)), _AB, _BB, kind="inplace",
            grad=False)
add("cmp[int-float]", registered("torch.eq", "torch.lt"), lambda t, a, b: (t.eq(a, b), t.lt(a, b), a == 1, a < 0.5),
    I, _AB)
add("torch.equal", registered("torch.equal", "torch.Tensor.equal"),
    lambda t, a, b: (t.equal(a, a.clone()), t.equal(a, b), a.equal(a[:2]), t.equal(a, a.double())), A, B)
add("torch.isclose", registered("torch.isclose", "torch.Tensor.isclose", "torch.allclose", "torch.Tensor.allclose"),
    lambda t, a, b: (t.isclose(a, a + 1e-7), a.isclose(b, atol=0.5), t.allclose(a, a + 1e-9), a.allclose(b),
                     t.isclose(a, b, rtol=0.5, atol=0.1)), A, B, grad=False)
add("torch.isclose[nan]", registered("torch.isclose", "torch.allclose"),
    lambda t, x: (t.isclose(x, x), t.isclose(x, x, equal_nan=True), t.allclose(x, x, equal_nan=True)),
    SPECIAL, grad=False)

# --- logical / bitwise -------------------------------------------------------------------------------
for _n in ["logical_and", "logical_or", "logical_xor"]:
    add(f"torch.{_n}", registered(f"torch.{_n}", f"torch.Tensor.{_n}"),
        lambda t, a, b, c, n=_n: (getattr(t, n)(a, b), getattr(a, n)(b), getattr(t, n)(c, a), getattr(t, n)(c, c)),
        BOOL, BOOL2, A)
    add(f"Tensor.{_n}_", registered(f"torch.Tensor.{_n}_"), (f"{_n}_", lambda t, b: (b,)), BOOL, BOOL2,
        kind="inplace")
    add(f"Tensor.{_n}_[float]", registered(f"torch.Tensor.{_n}_"), (f"{_n}_", lambda t, b: (b,)), A, B,
        kind="inplace", grad=False)
add("torch.logical_not", registered("torch.logical_not", "torch.Tensor.logical_not"),
    lambda t, a, b: (t.logical_not(a), b.logical_not(), t.logical_not(b.long())), BOOL, A)
add("Tensor.logical_not_", registered("torch.Tensor.logical_not_"), ("logical_not_", lambda t: ()), BOOL,
    kind="inplace")
for _n in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    add(f"torch.{_n}", registered(f"torch.{_n}", f"torch.Tensor.{_n}"),
        lambda t, a, b, c, d, n=_n: (getattr(t, n)(a, b), getattr(a, n)(b), getattr(t, n)(c, d), getattr(t, n)(a, 3)),
        I, IPOS, BOOL, BOOL2)
    add(f"Tensor.{_n}_", registered(f"torch.Tensor.{_n}_"), (f"{_n}_", lambda t, b: (b,)), I, IPOS, kind="inplace")
add("torch.bitwise_not", registered("torch.bitwise_not", "torch.Tensor.bitwise_not"),
    lambda t, a, b, c: (t.bitwise_not(a), b.bitwise_not(), ~a, ~b, t.bitwise_not(c)), I, BOOL, U8)
add("Tensor.bitwise_not_", registered("torch.Tensor.bitwise_not_"), ("bitwise_not_", lambda t: ()), I, kind="inplace")
add("dunder[bitwise]", (), lambda t, a, b, c, d: (a & b, a | b, a ^ b, c & d, c | d, c ^ d, a & 6, 6 | a), I, IPOS,
    BOOL, BOOL2)

# --- ternary / clamp / where ---------------------------------------------------------------------------
add("torch.where", registered("torch.where", "torch.Tensor.where"),
    lambda t, c, a, b: (t.where(c, a, b), a.where(c, b), t.where(c, a, 0.0), t.where(c, 1.0, b), t.where(c, a, b[0])),
    BOOL, A, B)
add("torch.where[promote]", registered("torch.where"),
    lambda t, c, a, b: (t.where(c, a, b), t.where(c, b, 2), t.where(c > 0, c, a)), BOOL, A, I)
add("torch.where[1-arg]", registered("torch.where"), lambda t, c: t.where(c), BOOL)
add("torch.clamp", registered("torch.clamp", "torch.Tensor.clamp", "torch.clip", "torch.Tensor.clip"),
    lambda t, x: (t.clamp(x, -0.5, 0.5), x.clamp(min=0.1), x.clamp(max=0.2), t.clip(x, -1, 1), x.clip(0, 1)), A)
add("torch.clamp[tensor-bounds]", registered("torch.clamp"), lambda t, x, lo, hi: t.clamp(x, lo, lo + hi.abs()), A, B,
    ROW)
add("torch.clamp[int]", registered("torch.clamp", "torch.clamp_min", "torch.clamp_max"),
    lambda t, x: (t.clamp(x, -2, 2), t.clamp(x, -1.5, 2.5), t.clamp_min(x, 0), t.clamp_max(x, 1)), I)
add("torch.clamp_min", registered("torch.clamp_min", "torch.clamp_max"),
    lambda t, x: (t.clamp_min(x, 0.1), t.clamp_max(x, -0.1)), A)
add("Tensor.clamp_", registered("torch.Tensor.clamp_"), ("clamp_", lambda t: (-0.3, 0.4)), A, kind="inplace")
add("Tensor.clip_", registered("torch.Tensor.clip_"), ("clip_", lambda t: (None, 0.4)), A, kind="inplace")
add("torch.clamp[none]", registered("torch.clamp"), lambda t, x: t.clamp(x), A, kind="raises")
add("torch.lerp", registered("torch.lerp", "torch.Tensor.lerp"),
    lambda t, a, b, w: (t.lerp(a, b, 0.3), a.lerp(b, w), t.lerp(a, b[0], w)), A, B, POS)
add("Tensor.lerp_", registered("torch.Tensor.lerp_"), ("lerp_", lambda t, b: (b, 0.25)), A, B, kind="inplace")
for _n in ["addcmul", "addcdiv"]:
    add(f"torch.{_n}", registered(f"torch.{_n}", f"torch.Tensor.{_n}"),
        lambda t, a, b, c, n=_n: (getattr(t, n)(a, b, c), getattr(a, n)(b, c, value=0.5), getattr(t, n)(a, b[0], c)),
        A, B, POS)
    add(f"Tensor.{_n}_", registered(f"torch.Tensor.{_n}_"), (f"{_n}_", lambda t, b, c: (b, c)), A, B, POS,
        kind="inplace")

# --- operators -----------------------------------------------------------------------------------------
add("dunder[arith]", (),
    lambda t, a, b: (a + b, a - b, a * b, a / b, a ** 2, 2 ** a, -a, +a, abs(a), 1 + a, 1 - a, 2 * a, 1 / b, a % b,
                     a @ b.T, b.abs() ** a), A, POS)
add("dunder[floordiv]", (), lambda t, a, b: (a // b, 3 // b, a // 2, 3 % b), A, POS, grad=False)
add("dunder[int]", (), lambda t, a, b: (a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, 2 ** b, -a, 7 // b, 7 % b),
    I, IPOS)
add("dunder[cmp]", (), lambda t, a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b, a == 0.0, 0.0 < a), _AB, _BB)
for _op in ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__", "__ifloordiv__", "__imod__"]:
    add(f"dunder[{_op}]", (),
        lambda t, a, b, op=_op: (lambda y: (getattr(y, op)(b) is y, y)[1])(a.clone()),
        POS, POS2, grad=_op not in ("__ifloordiv__", "__imod__"))
for _op in ["__iand__", "__ior__", "__ixor__"]:
    add(f"dunder[{_op}]", (), lambda t, a, b, op=_op: (lambda y: (getattr(y, op)(b) is y, y)[1])(a.clone()), I, IPOS)
add("dunder[iadd-promote-error]", (), lambda t, a, b: a.__iadd__(b), I, A, kind="raises")
add("dunder[iadd-broadcast]", (), lambda t, a, b: (lambda y: (y.__iadd__(b), y)[1])(a.clone()), A, ROW)
add("inplace[int-into-float]", registered("torch.Tensor.add_", "torch.Tensor.mul_"),
    lambda t, a, b: (a.clone().add_(b), a.clone().mul_(2)), A, I)

# --- second-order gradients: the backward formulas are themselves differentiable ------------------
def _grad_of(f):
    """``x -> d(sum f(x))/dx`` with ``create_graph``: comparing it (and its own
    gradient, which ``compare`` takes) checks double backward."""
    return lambda t, *xs: t.autograd.grad(f(t, *xs).sum(), xs, create_graph=True)



for _n, _x in UNARY.items():
    if _n in ("floor", "ceil", "round", "trunc", "sign", "frac", "positive", "relu", "abs", "absolute", "neg",
              "negative"):
        continue
    add(f"grad2[{_n}]", registered(f"torch.{_n}"), _grad_of(lambda t, x, n=_n: getattr(t, n)(x)), _x)
for _n in ["mul", "div", "pow", "atan2", "hypot", "logaddexp", "xlogy", "maximum", "sub", "add", "float_power"]:
    _a, _b = BINARY[_n]
    add(f"grad2[{_n}]", registered(f"torch.{_n}"), _grad_of(lambda t, a, b, n=_n: getattr(t, n)(a, b)), _a, _b)
for _n, _f in {"where": lambda t, a, b: t.where(a > 0, a * a, b * b * b), "clamp": lambda t, a, b: t.clamp(a * b, -0.5, 0.5),
               "lerp": lambda t, a, b: t.lerp(a * a, b, 0.3), "addcdiv": lambda t, a, b: t.addcdiv(a, a * a, b.abs() + 1),
               "addcmul": lambda t, a, b: t.addcmul(a, a, b * b)}.items():
    add(f"grad2[{_n}]", registered(f"torch.{_n}"), _grad_of(_f), A, B)

# --- 0-d and empty tensors -------------------------------------------------------------------------
S0 = np.array(1.5, np.float32)
E0 = np.zeros((0, 3), np.float32)
add("0d[unary]", registered("torch.exp", "torch.sin", "torch.sqrt", "torch.neg"),
    lambda t, x: (t.exp(x), t.sin(x), t.sqrt(x), -x, x * 2, x + x), S0)
add("0d[broadcast]", registered("torch.add", "torch.mul", "torch.maximum"),
    lambda t, x, a: (x + a, a * x, t.maximum(x, a), x.expand(2, 3) * 1), S0, A)
add("empty[pointwise]", registered("torch.exp", "torch.add", "torch.where"),
    lambda t, x, r: (t.exp(x), x + r[:3], t.where(x > 0, x, 0.0), x * 2), E0, ROW)
add("inplace[leaf-error]", registered("torch.Tensor.add_"),
    lambda t, x: t.ones(2, requires_grad=True).add_(1), A, kind="raises")
add("inplace[view-of-leaf-error]", registered("torch.Tensor.mul_"),
    lambda t, x: t.ones(2, 3, requires_grad=True)[0].mul_(2), A, kind="raises")
add("inplace[through-view-grad]", registered("torch.Tensor.mul_", "torch.Tensor.add_"),
    lambda t, x, y: (lambda z: (z[0].mul_(y[0]), z[:, 1].add_(1.0), z * 1)[2])(x * 1), A, B)

# --- errors ------------------------------------------------------------------------------------------------
add("err[add-shape]", registered("torch.add"), lambda t, a, b: t.add(a, b), A, np.ones((2, 3), np.float32),
    kind="raises")
add("err[bitwise-float]", registered("torch.bitwise_and"), lambda t, a, b: t.bitwise_and(a, b), A, B, kind="raises")
add("err[inplace-broadcast-out]", registered("torch.Tensor.add_"), lambda t, a, b: a.add_(b), ROW, A, kind="raises")


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_pointwise(c):
    run_case(c)
