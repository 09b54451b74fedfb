"""Elementwise math and comparisons, with PyTorch's promotion and gradients."""

from __future__ import annotations

import math
from builtins import abs as builtins_abs

from ... import _dispatch, _ms
from .. import _core, _dtype as D
from .._core import K, KA, adopt, binary_operands, cast, meta, needs_grad, record, shape_of, wrap, write_out, TensorPy

__all__ = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
           "neg", "abs", "exp", "exp2", "log", "log2", "log10", "sqrt", "rsqrt", "square", "sin", "cos",
           "tan", "tanh", "sigmoid", "relu", "floor", "ceil", "round", "trunc", "frac", "sign",
           "reciprocal", "erf", "log1p", "expm1", "asin", "acos", "atan", "atan2", "sinh", "cosh",
           "maximum", "minimum", "clamp", "clip", "where", "lerp", "addcmul", "addcdiv",
           "eq", "ne", "lt", "le", "gt", "ge", "equal", "allclose", "isclose", "isnan", "isinf",
           "isfinite", "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "sum_to", "nan_to_num", "signbit", "hypot",
           "greater", "greater_equal", "less", "less_equal", "not_equal", "multiply", "divide",
           "subtract", "negative", "absolute", "positive", "float_power", "xlogy", "logaddexp"]


def sum_to(g, shape):
    """Reduce a broadcast gradient back to ``shape``."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    gs = g.shape
    lead = len(gs) - len(shape)
    inner = [lead + i for i, s in enumerate(shape) if s == 1 and gs[lead + i] != 1]
    if not inner:  # only leading dims were broadcast: one reduction, no reshape kernel after it
        return g.sum(dim=list(range(lead))) if lead > 0 else g
    g = g.sum(dim=list(range(lead)) + inner, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g


# Result dtypes an op records only where its CPU kernels are known to succeed
# (bfloat16 and complex kernels are missing for most ops): a failing MindSpore
# kernel reports its error when its result's metadata is first read, and a
# recorded dtype would postpone that.  Sets of ``id``s: dtypes hash slowly.
_F = frozenset(map(id, (D.float16, D.float32, D.float64)))
_FI = _F | frozenset(map(id, (D.int8, D.int16, D.int32, D.int64, D.uint8)))
_FIB = _FI | {id(D.bool)}


def _shape(x):
    return shape_of(x) if isinstance(x, TensorPy) else ()


_MS_TENSOR = _core.ms.Tensor
_STATE = _core.STATE
_F32_16 = frozenset(map(id, (D.float16, D.float32)))
#: ``KA``'s attribute dict: ``_KA[name]`` is ``KA.name``, one dict lookup
_KA = KA.__dict__
_KD = _dispatch.KD
_JIT = _ms.JIT


def _types(ids):
    """The classes of the dtypes in ``ids`` (a set of dtype ``id``s).  Each torch dtype is the
    one instance of its own class, so ``type(d) in _types(s)`` is ``id(d) in s`` without
    making an int for ``id(d)`` (~75 ns less per check here; the one-step paths make 2-3)."""
    return frozenset(type(d) for d in D._ALL if id(d) in ids)


_F_T, _F32_16_T = _types(_F), _types(_F32_16)


def one_step(kname, rest, ok=_FI):
    """``op(a, b)``: binary op ``kname`` (a ``KA`` kernel's name) in one step where it can,
    else ``rest(a, b)`` (the op's general path).

    One step: tensor ``a`` (an adapter tensor with recorded dtype and shape, the dtype's id in
    ``ok``) with a tensor of the same recorded dtype and shape, or with a Python float (``a``
    float16/float32) or int (``a`` float or integer); no operand that autograd tracks.  Then
    no promotion, cast, broadcasting or record is needed: the kernel's result gets ``a``'s
    dtype and shape, as :func:`binary_operands` and :func:`_call2` would give it.  The checks
    are inlined here, not a call: ``x + y`` runs two Python frames above the kernel instead
    of five (benchmarks/op_overhead.py)."""
    ok_t = _types(ok)

    def op(a, b):
        T = _core.Tensor_
        if type(a) is T:
            da = a._dt
            if type(da) in ok_t:  # (None is no dtype's class)
                tb = type(b)
                if tb is T:
                    go = b._dt is da and b._sh == a._sh and not (_STATE.enabled and (
                        a._grad_fn is not None or a._req_grad or b._grad_fn is not None or b._req_grad))
                elif tb is float:
                    go = type(da) in _F32_16_T and not (_STATE.enabled and (a._grad_fn is not None or a._req_grad))
                elif tb is int:
                    go = not (_STATE.enabled and (a._grad_fn is not None or a._req_grad))
                    if go and type(da) in _F_T:
                        b = float(b)
                else:
                    go = False
                if go:
                    d = _KD[kname]
                    if d is None or _JIT._jit_context is not None:
                        return adopt(_KA[kname](a, b), da, a._sh)
                    # KA's kernel inlined (the PyBoost call with the operands re-classed as plain
                    # MindSpore tensors, see _ms.plain_args), then adopt(): one Python frame
                    sb = tb is T and b is not a
                    try:
                        a.__class__ = _MS_TENSOR
                        if sb:
                            b.__class__ = _MS_TENSOR
                        r = d[0](d[1], [a, b])
                    finally:
                        a.__class__ = T
                        if sb:
                            b.__class__ = T
                    return _own(r, T, da, a._sh)
        return rest(a, b)
    op.__name__ = kname
    return op


def _own(r, T, dtype, shape):
    """A direct PyBoost result as ``adopt`` gives it: re-classed (a plain tensor), dtype and shape recorded."""
    if type(r) is _MS_TENSOR:
        r.__class__ = T
    else:
        r = wrap(r)
    r._dt = dtype
    r._sh = shape
    return r


def _binary(kernel, a, b, out):
    a, b, rt = binary_operands(a, b)
    res = _call2(kernel, a, b, rt)
    return a, b, rt, res


def _call2(kernel, a, b, dtype, ok=_FI):
    """Run a broadcasting binary kernel whose result has ``dtype`` and wrap
    the result, recording its dtype and shape when ``id(dtype)`` is in ``ok``.
    Shapes are checked first: MindSpore runs kernels asynchronously and
    would report a mismatch only when the result is first read, as a
    ``ValueError``."""
    if isinstance(a, TensorPy):
        sh = shape_of(a)
        if isinstance(b, TensorPy):
            sb = shape_of(b)
            if sb != sh:
                sh = broadcast_shape(sh, sb)
    else:  # binary_operands leaves at most one operand a Python number
        sh = shape_of(b)
    res = wrap(kernel(a, b))
    if id(dtype) in ok:
        res._dt = dtype
        res._sh = sh
    return res


def broadcast_shape(sa, sb):
    """The broadcast of shapes ``sa`` and ``sb`` (tuples), or PyTorch's
    RuntimeError when they do not broadcast."""
    n = len(sa) if len(sa) > len(sb) else len(sb)
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    out = []
    for i in range(n):
        x, y = pa[i], pb[i]
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            check_broadcast(sa, sb)
    return tuple(out)


def check_broadcast(sa, sb):
    """Raise PyTorch's RuntimeError when shapes ``sa`` and ``sb`` do not broadcast."""
    n = len(sa) if len(sa) > len(sb) else len(sb)
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) "
                               f"at non-singleton dimension {i}")


def add(input, other, *, alpha=1, out=None):
    """msnb implementation of ``torch.add``."""
    if out is None and alpha == 1:
        return _add2(input, other)
    return _add(input, other, alpha, out)


def _check_alpha(input, other, alpha):
    """PyTorch refuses a floating ``alpha`` when the result is integral (it would truncate)."""
    if isinstance(alpha, float) and not isinstance(alpha, bool):
        rt = binary_operands(input, other)[2]
        if not rt.is_floating_point and not rt.is_complex:
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _add(input, other, alpha=1, out=None):
    _check_alpha(input, other, alpha)
    if alpha != 1:
        other = mul(other, alpha)
    a, b, rt = binary_operands(input, other)
    if rt is D.bool:
        return write_out(out, logical_or(a, b))
    res = _call2(K.add, a, b, rt)
    if needs_grad(a, b):
        sa, sb = _shape(a), _shape(b)
        record("AddBackward0", res, (a, b), lambda g: (sum_to(g, sa), sum_to(g, sb)))
    return res if out is None else write_out(out, res)


def sub(input, other, *, alpha=1, out=None):
    """msnb implementation of ``torch.sub``."""
    if out is None and alpha == 1:
        return _sub2(input, other)
    return _sub(input, other, alpha, out)


def _sub(input, other, alpha=1, out=None):
    _check_alpha(input, other, alpha)
    if alpha != 1:
        other = mul(other, alpha)
    a, b, rt, res = _binary(K.sub, input, other, out)
    if needs_grad(a, b):
        sa, sb = _shape(a), _shape(b)
        record("SubBackward0", res, (a, b), lambda g: (sum_to(g, sa), sum_to(neg(g), sb)))
    return res if out is None else write_out(out, res)


def mul(input, other, *, out=None):
    """msnb implementation of ``torch.mul``."""
    if out is None:
        return _mul2(input, other)
    return _mul(input, other, out)


def _mul(input, other, out=None):
    a, b, rt = binary_operands(input, other)
    if rt is D.bool:
        return write_out(out, logical_and(a, b))
    res = _call2(K.mul, a, b, rt)
    if needs_grad(a, b):
        sa, sb = _shape(a), _shape(b)
        record("MulBackward0", res, (a, b),
               lambda g: (sum_to(mul(g, _cj(b)), sa) if _rg(a) else None,
                          sum_to(mul(g, _cj(a)), sb) if _rg(b) else None),
               saved=_saved_for((b, _rg(a)), (a, _rg(b))))
    return res if out is None else write_out(out, res)


def _saved_for(*pairs):
    """The operands a backward reads, as PyTorch saves them: ``(tensor, needed)`` pairs; only a
    saved tensor is checked for in-place changes (``x * 2`` then ``x.add_(1)`` is fine)."""
    return tuple(t for t, needed in pairs if needed and isinstance(t, TensorPy))


def _rg(x):
    return isinstance(x, TensorPy) and x.requires_grad


def _cj(x):
    """The conjugate of a complex operand (PyTorch's complex gradients), else ``x``."""
    if isinstance(x, TensorPy) and x.dtype.is_complex:
        from .complex import conj
        return conj(x)
    return x.conjugate() if isinstance(x, complex) else x


def div(input, other, *, rounding_mode=None, out=None):
    """msnb implementation of ``torch.div`` (true, ``"trunc"`` and ``"floor"`` division)."""
    if rounding_mode is not None:
        _int_zero_check(other, D.result_type(input, other))
        with _no_grad():
            if rounding_mode == "floor" and D.result_type(input, other).is_floating_point:
                q = _float_floor_div(*binary_operands(input, other)[:2])
            else:
                q = div(input, other)
                q = trunc(q) if rounding_mode == "trunc" else floor(q) if rounding_mode == "floor" else \
                    _bad_mode(rounding_mode)
        rt = D.result_type(*(x for x in (input, other)))
        if rt.is_floating_point and needs_grad(input, other):
            # a rounded quotient's gradient is zero (PyTorch's ``grad * 0``), also where the divisor is
            # 0, whose chain through the true division gave 0 * inf = NaN
            record("DivBackward2", q, (input, other), lambda g: tuple(
                sum_to(mul(g, 0), _shape(t)) if _rg(t) else None for t in (input, other)))
        return write_out(out, cast(q, rt) if not rt.is_floating_point else q)
    if out is None:
        return _div2(input, other)
    return _div(input, other, out)


def _div(input, other, out=None):
    a, b, rt = binary_operands(input, other)
    if not rt.is_floating_point and not rt.is_complex:
        rt = D.get_default_dtype()
        a = cast(a, rt) if isinstance(a, TensorPy) else float(a)
        b = cast(b, rt) if isinstance(b, TensorPy) else float(b)
    res = _call2(K.true_div, a, b, rt)
    if needs_grad(a, b):
        sa, sb = _shape(a), _shape(b)
        record("DivBackward0", res, (a, b),
               lambda g: (sum_to(div(g, _cj(b)), sa) if _rg(a) else None,
                          sum_to(neg(div(mul(g, _cj(a)), _cj(mul(b, b)))), sb) if _rg(b) else None),
               saved=_saved_for((b, True), (a, _rg(b))))
    return res if out is None else write_out(out, res)


_add2 = one_step("add", _add)
_sub2 = one_step("sub", _sub)
_mul2 = one_step("mul", _mul)
_div2 = one_step("true_div", _div, _F)


def _bad_mode(m):
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'")


true_divide = divide = div
multiply = mul
subtract = sub


def _int_zero_check(b, rt):
    """Integer division by zero raises in PyTorch (CPU), it does not give a number."""
    from ...graph.capture import recording
    if rt.is_floating_point or rt is D.bool or recording():
        return
    if isinstance(b, TensorPy):
        if bool(K.any(K.eq(b, 0))):
            raise RuntimeError("ZeroDivisionError")
    elif b == 0:
        raise RuntimeError("ZeroDivisionError")


def floor_divide(input, other, *, out=None):
    a, b, rt = binary_operands(input, other)
    _int_zero_check(b, rt)
    return write_out(out, _call2(K.floor_divide, a, b, rt) if not rt.is_floating_point else _float_floor_div(a, b))


def _float_floor_div(a, b):
    """Floating floor division as PyTorch's, from ``fmod`` so that ``a == q * b + remainder(a, b)``:
    ``(a - fmod(a, b)) / b``, one less when the remainder's sign is not the divisor's, rounded to
    the nearest integer; a zero quotient takes the sign of ``a / b``, a zero divisor gives ``a / b``
    (``floor(-3 / inf)`` is -1, not ``floor(-0.0)``)."""
    with _no_grad():
        q = div(a, b)
        mod = _float_mod("fmod", a, b)
        d = div(sub(a, mod), b)
        b_neg = lt(b, 0) if isinstance(b, TensorPy) else b < 0
        d = where(logical_and(ne(mod, 0), ne(lt(mod, 0), b_neg)), sub(d, 1), d)
        fl = floor(d)
        fl = where(gt(sub(d, fl), 0.5), add(fl, 1), fl)
        res = where(ne(d, 0), fl, mul(q, 0))
        return where(eq(b, 0), q, res) if isinstance(b, TensorPy) else (q if b == 0 else res)


def remainder(input, other, *, out=None):
    """msnb implementation of ``torch.remainder`` (sign of the divisor)."""
    a, b, rt = binary_operands(input, other)
    if rt.is_floating_point:
        return write_out(out, _float_mod("remainder", a, b))
    _int_zero_check(b, rt)
    res = sub(a, mul(floor_divide(a, b), b))
    return write_out(out, res)


def _float_mod(kind, a, b):
    """Floating ``fmod`` (the dividend's sign) or ``remainder`` (the divisor's), as PyTorch's: a
    finite ``a`` modulo an infinite ``b`` is ``a`` (then ``b`` added for ``remainder`` when the
    signs differ, so ``remainder(-3, inf)`` is ``inf``), a zero result keeps the dividend's sign.
    Gradients: ``g`` for ``a``, ``-g * trunc(a / b)`` (``floor`` for remainder) for ``b``."""
    if not isinstance(a, TensorPy):  # a number dividend (``5.0 % t``): as a tensor of b's dtype
        a = _scalar_tensor(a, b.dtype)
    with _no_grad():
        rt = a.dtype
        if rt is D.float64:
            m = sub(a, mul(trunc(div(a, b)), b))
        else:  # exact for narrower floats: the quotient's truncation and product in float64
            a64 = cast(a, D.float64)
            b64 = cast(b, D.float64) if isinstance(b, TensorPy) else float(b)
            m = cast(sub(a64, mul(trunc(div(a64, b64)), b64)), rt)
        if isinstance(b, TensorPy):
            m = where(logical_and(isinf(b), isfinite(a)), a, m)
        elif math.isinf(b):
            m = where(isfinite(a), a, m)
        m = where(eq(m, 0), mul(a, 0), m)
        if kind == "remainder":
            b_neg = lt(b, 0) if isinstance(b, TensorPy) else b < 0
            m = where(logical_and(ne(m, 0), ne(lt(m, 0), b_neg)), add(m, b), m)
    if needs_grad(a, b):
        tensor_b = isinstance(b, TensorPy)

        def bw(g):
            gb = None
            if _rg(b):
                with _no_grad():
                    q = div(a, b, rounding_mode="trunc" if kind == "fmod" else "floor")
                gb = sum_to(neg(mul(g, q)), _shape(b))
            return (sum_to(g, _shape(a)) if _rg(a) else None), gb
        record(("FmodBackward" if kind == "fmod" else "RemainderBackward") + ("1" if tensor_b else "0"), m, (a, b), bw,
               saved=tuple(t for t in (a, b) if isinstance(t, TensorPy)))
    return m


def fmod(input, other, *, out=None):
    a, b, rt = binary_operands(input, other)
    if rt.is_floating_point:
        return write_out(out, _float_mod("fmod", a, b))
    # integers: the result takes the dividend's sign, |a| mod |b| in size
    _int_zero_check(b, rt)
    return write_out(out, mul(remainder(abs(a), abs(b)), sign(a)))


def _integer_power_check(a, b, rt):
    """PyTorch refuses an integral tensor to a negative integral power."""
    if rt.is_floating_point or rt.is_complex or rt is D.bool:
        return
    if isinstance(b, TensorPy):
        from ...graph.capture import recording  # a graph step leaves value checks out (no host read)
        neg = (b.numel() and not b.dtype.is_floating_point and not recording()
               and bool((b.numpy() < 0).any()))
    else:
        neg = isinstance(b, int) and b < 0
    if neg:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def pow(input, exponent, *, out=None):
    """msnb implementation of ``torch.pow``."""
    if not isinstance(input, TensorPy) and isinstance(exponent, TensorPy):
        a, b, rt = binary_operands(input, exponent)
        res = wrap(K.pow(a, b))
        if needs_grad(b):
            record("PowBackward1", res, (None, b), lambda g: (None, sum_to(mul(mul(g, res), math.log(a)), _shape(b))))
        return write_out(out, res)
    a, b, rt = binary_operands(input, exponent)
    _integer_power_check(a, b, rt)
    if rt.is_floating_point and not isinstance(b, TensorPy) and b in (0.5, -0.5):
        # PyTorch computes these powers as sqrt / rsqrt: sqrt(-inf) is NaN where C's pow gives inf
        res = wrap((K.sqrt if b > 0 else K.rsqrt)(a))
    else:
        res = wrap(K.pow(a, b))
    if needs_grad(a, b):
        sa, sb = _shape(a), _shape(b)

        def bw(g):
            ga = gb = None
            if _rg(a):
                if isinstance(b, TensorPy):
                    ga = sum_to(mul(mul(g, b), pow(a, sub(b, 1))), sa)
                else:
                    ga = mul(g, mul(pow(a, b - 1), b)) if b != 0 else mul(g, 0.0)
            if _rg(b):
                safe = where(eq(a, 0), 1.0, a)
                gb = sum_to(mul(mul(g, res), log(safe)), sb)
            return ga, gb
        record("PowBackward0", res, (a, b), bw, saved=tuple(t for t in (a, b) if isinstance(t, TensorPy)))
    return write_out(out, res)


def float_power(input, exponent):
    a = cast(input, D.float64) if isinstance(input, TensorPy) else float(input)
    b = cast(exponent, D.float64) if isinstance(exponent, TensorPy) else exponent
    return pow(a, b)


def _unary(name, kname, grad_fn=None, float_only=True, save_out=False, int_identity=False, keeps=_F,
           float_kname=None):
    # dtypes whose result is the kernel's with the input's dtype and shape recorded
    fast = _types(keeps & _F if (float_only or int_identity) else keeps)
    # ``float_kname``: the kernel the one-step path runs for a float16/32/64 input instead

    def op(input, *, out=None):
        if type(input) is _core.Tensor_ and out is None:
            # the common case in one step: a recorded dtype that needs no cast, nothing to record
            dt = input._dt
            if type(dt) in fast and (grad_fn is None or not _STATE.enabled or (
                    input._grad_fn is None and not input._req_grad)):
                kn = kname if float_kname is None or type(dt) not in _F_T else float_kname
                d = _KD[kn]
                if d is None or _JIT._jit_context is not None:
                    return adopt(_KA[kn](input), dt, input._sh)
                T = _core.Tensor_  # (KA's kernel inlined, as in one_step)
                try:
                    input.__class__ = _MS_TENSOR
                    r = d[0](d[1], [input])
                finally:
                    input.__class__ = T
                return _own(r, T, dt, input._sh)
        kernel = getattr(K, kname)
        x = input
        dt = x.dtype
        if not dt.is_floating_point and not dt.is_complex:
            if float_only:
                x = cast(x, D.get_default_dtype())
                dt = x.dtype
            elif int_identity:
                return write_out(out, meta(wrap(K.identity(x)), dt, shape_of(x)))
        res = wrap(kernel(x))
        if id(dt) in keeps:
            res._dt = dt
            res._sh = shape_of(x)
        if grad_fn is not None and needs_grad(x):
            saved = (res,) if save_out else (x,)  # what PyTorch saves: the result (exp, tanh ...) or the input
            if dt.is_complex:  # holomorphic f: PyTorch's gradient is g * conj(f'(x))
                record(name, res, (x,), lambda g: (_cj(grad_fn(_cj(g), x, res)),), saved=saved)
            else:
                record(name, res, (x,), lambda g: (grad_fn(g, x, res),), saved=saved)
        return res if out is None else write_out(out, res)
    op.__name__ = name
    return op


_neg = _unary("NegBackward0", "neg", lambda g, x, y: neg(g), float_only=False, keeps=_FI)


def neg(input, *, out=None):
    """msnb implementation of ``torch.neg``; a bool tensor is refused, as in PyTorch."""
    if input.dtype is D.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return _neg(input, out=out)


negative = neg
exp = _unary("ExpBackward0", "exp", lambda g, x, y: mul(g, y), save_out=True)
log = _unary("LogBackward0", "log", lambda g, x, y: div(g, x))
sqrt = _unary("SqrtBackward0", "sqrt", lambda g, x, y: div(g, mul(y, 2)), save_out=True)
rsqrt = _unary("RsqrtBackward0", "rsqrt", lambda g, x, y: mul(g, mul(pow(y, 3), -0.5)), save_out=True)
sin = _unary("SinBackward0", "sin", lambda g, x, y: mul(g, cos(x)))
cos = _unary("CosBackward0", "cos", lambda g, x, y: mul(g, neg(sin(x))))
tan = _unary("TanBackward0", "tan", lambda g, x, y: mul(g, add(mul(y, y), 1)), save_out=True)
tanh = _unary("TanhBackward0", "tanh", lambda g, x, y: mul(g, sub(1, mul(y, y))), save_out=True)
sigmoid = _unary("SigmoidBackward0", "sigmoid", lambda g, x, y: mul(g, mul(y, sub(1, y))), save_out=True)
erf = _unary("ErfBackward0", "erf", lambda g, x, y: mul(g, mul(exp(neg(mul(x, x))), 2 / math.sqrt(math.pi))))
log1p = _unary("Log1PBackward0", "log1p", lambda g, x, y: div(g, add(x, 1)))
expm1 = _unary("Expm1Backward0", "expm1", lambda g, x, y: mul(g, add(y, 1)))
asin = _unary("AsinBackward0", "asin", lambda g, x, y: div(g, sqrt(sub(1, mul(x, x)))))
acos = _unary("AcosBackward0", "acos", lambda g, x, y: neg(div(g, sqrt(sub(1, mul(x, x))))))
atan = _unary("AtanBackward0", "atan", lambda g, x, y: div(g, add(mul(x, x), 1)))
sinh = _unary("SinhBackward0", "sinh", lambda g, x, y: mul(g, cosh(x)))
cosh = _unary("CoshBackward0", "cosh", lambda g, x, y: mul(g, sinh(x)))
reciprocal = _unary("ReciprocalBackward0", "reciprocal", lambda g, x, y: neg(mul(g, mul(y, y))))
# PyTorch's threshold_backward: the gradient passes where the result is not 0 (a NaN result passes
# it) and is 0 elsewhere whatever it holds (a NaN or infinite gradient too: a select, not a product)
relu = _unary("ReluBackward0", "relu", lambda g, x, y: where(ne(y, 0), g, 0.0), float_only=False,
              keeps=_FIB, float_kname="relu_float")
_abs = _unary("AbsBackward0", "abs", lambda g, x, y: mul(g, sign(x)), float_only=False, keeps=_FIB)


def abs(input, *, out=None):  # noqa: A001
    """msnb implementation of ``torch.abs`` (a real result for complex input)."""
    if input.dtype.is_complex:
        from .complex import complex_abs
        return write_out(out, complex_abs(input))
    return _abs(input, out=out)


absolute = abs
floor = _unary("FloorBackward0", "floor", lambda g, x, y: mul(g, 0), float_only=False, int_identity=True)
ceil = _unary("CeilBackward0", "ceil", lambda g, x, y: mul(g, 0), float_only=False, int_identity=True)
trunc = _unary("TruncBackward0", "trunc", lambda g, x, y: mul(g, 0), float_only=False, int_identity=True)
_sign = _unary("SignBackward0", "sign", lambda g, x, y: mul(g, 0), float_only=False,
               keeps=_F | {id(D.int32), id(D.int64)})


def sign(input, *, out=None):
    """msnb implementation of ``torch.sign`` (bool stays bool, a copy: MindSpore's CPU Sign has no bool)."""
    if input.dtype == D.bool:
        return write_out(out, meta(wrap(K.identity(input)), D.bool, shape_of(input)))
    return _sign(input, out=out)


def round(input, *, decimals=0, out=None):  # noqa: A001
    """msnb implementation of ``torch.round`` (half to even, like PyTorch)."""
    if not input.dtype.is_floating_point:
        return write_out(out, wrap(K.identity(input)))
    if decimals:
        scale = 10.0 ** decimals
        return write_out(out, div(round(mul(input, scale)), scale))
    res = wrap(K.round(input))
    if needs_grad(input):
        record("RoundBackward0", res, (input,), lambda g: (mul(g, 0),))
    return write_out(out, res)


def frac(input):
    return sub(input, trunc(input))


def positive(input):
    return input


def exp2(input):
    return pow(2.0, input)


def log2(input):
    return div(log(input), math.log(2.0))


def log10(input):
    return div(log(input), math.log(10.0))


def square(input):
    if isinstance(input, TensorPy) and input.dtype is D.bool:  # PyTorch squares booleans as int64
        input = cast(input, D.int64)
    from ..autograd.graph import name_node
    return name_node(mul(input, input), "PowBackward0", input)


def atan2(input, other, *, out=None):
    a, b, rt = binary_operands(input, other)
    if not rt.is_floating_point:
        a, b = cast(a, D.get_default_dtype()), cast(b, D.get_default_dtype())
    res = wrap(K.atan2(a, b))
    if needs_grad(a, b):
        def bw(g):
            den = add(mul(a, a), mul(b, b))
            return sum_to(div(mul(g, b), den), a.shape), sum_to(div(mul(neg(g), a), den), b.shape)
        record("Atan2Backward0", res, (a, b), bw, saved=(a, b))
    return write_out(out, res)


def hypot(input, other):
    return sqrt(add(mul(input, input), mul(other, other)))


def logaddexp(input, other):
    """``log(exp(a) + exp(b))`` as ``max + log1p(exp(-|a - b|))``; two equal infinities give
    themselves (PyTorch's ``inf``, ``-inf``), not ``inf - inf``'s NaN."""
    m = maximum(input, other)
    res = add(m, log1p(exp(neg(abs(sub(input, other))))))
    return where(logical_and(eq(input, other), isinf(input)), input, res)


def xlogy(input, other, *, out=None):
    """msnb implementation of ``torch.xlogy``: 0 where ``input == 0`` unless ``other`` is NaN."""
    a, b, rt = binary_operands(input, other)
    if not rt.is_floating_point:
        rt = D.get_default_dtype()
    a = cast(a, rt) if isinstance(a, TensorPy) else _scalar_tensor(a, rt)
    b = cast(b, rt) if isinstance(b, TensorPy) else _scalar_tensor(b, rt)
    return write_out(out, xlog_op("XlogyBackward0", log, a, b, lambda g, x, y: div(mul(g, x), y)))


def xlog_op(name, fn, a, b, grad_other):
    """``a * fn(b)``, 0 where ``a == 0`` and ``b`` is not NaN, with PyTorch's gradients: for
    ``a``, ``g * fn(b)``, 0 where ``a == 0`` and ``b`` is at or beyond ``fn``'s pole (``b <= 0``
    for log, ``b <= -1`` for log1p: ``d/da xlogy(a, 2)`` at ``a = 0`` is ``log 2``, not 0);
    ``grad_other(g, a, b)`` for ``b``."""
    from ..autograd.grad_mode import no_grad as _ng
    with _ng():
        zero = logical_and(eq(a, 0), logical_not(isnan(b)))
        fb = fn(b)
        res = where(zero, 0.0, mul(a, fb))
        pole = -1.0 if fn is log1p else 0.0
        zero_grad = logical_and(eq(a, 0), le(b, pole))
    if needs_grad(a, b):
        from ..autograd.grad_mode import STATE

        def bw(g):  # with create_graph, fn(b) is recomputed so the gradient is differentiable
            f = fn(b) if STATE.enabled else fb
            return sum_to(where(zero_grad, 0.0, mul(g, f)), _shape(a)), sum_to(grad_other(g, a, b), _shape(b))
        record(name, res, (a, b), bw, saved=(a, b))
    return res


def _scalar_tensor(v, dtype):
    from .creation import tensor
    return tensor(float(v), dtype=dtype)


def _select_grad(name, kname, pick_a):
    def op(input, other, *, out=None):
        kernel = getattr(K, kname)
        a, b, rt = binary_operands(input, other)
        if rt is D.bool:  # MindSpore's CPU Maximum/Minimum have no bool kernel: max is or, min is and
            return write_out(out, (logical_or if kname == "maximum" else logical_and)(a, b))
        if _empty_result(a, b):  # MindSpore's CPU kernels refuse an empty output (and may crash on one)
            return write_out(out, _empty_binary(name, a, b, rt))
        res = _call2(kernel, a, b, rt)
        if rt.is_floating_point:
            # MindSpore's kernels return the number where PyTorch propagates NaN
            sh = shape_of(res)
            rec = res._dt is not None
            for t in (b, a):
                if isinstance(t, TensorPy):
                    res = wrap(K.where(K.isnan(t), t, res)) if shape_of(t) == sh else \
                        wrap(K.where(K.isnan(t), K.broadcast_to(t, sh), res))
                    if rec:
                        meta(res, rt, sh)
        if needs_grad(a, b):
            sa, sb = _shape(a), _shape(b)

            def bw(g):
                # each side's weight: 1, less 1 where it loses, less 1/2 on a tie (as PyTorch's:
                # a NaN neither wins nor loses nor ties, and both sides get the whole gradient)
                half = mul(cast(eq(a, b), g.dtype), 0.5)
                wa = sub(sub(1, cast(pick_a(b, a), g.dtype)), half)
                wb = sub(sub(1, cast(pick_a(a, b), g.dtype)), half)
                return sum_to(mul(g, wa), sa), sum_to(mul(g, wb), sb)
            record(name, res, (a, b), bw, saved=tuple(t for t in (a, b) if isinstance(t, TensorPy)))
        return write_out(out, res)
    return op


def _empty_result(a, b) -> bool:
    """Does the broadcast of ``a`` and ``b`` (tensors or one Python number) have no elements?"""
    sa = shape_of(a) if isinstance(a, TensorPy) else ()
    sb = shape_of(b) if isinstance(b, TensorPy) else ()
    return 0 in (broadcast_shape(sa, sb) if sa != sb else sa)


def _empty_binary(name, a, b, dtype):
    """The empty result of a broadcasting binary op on ``a`` and ``b``, with zero gradients."""
    from .creation import zeros
    sa = shape_of(a) if isinstance(a, TensorPy) else ()
    sb = shape_of(b) if isinstance(b, TensorPy) else ()
    res = zeros(broadcast_shape(sa, sb) if sa != sb else sa, dtype=dtype)
    if needs_grad(a, b):
        record(name, res, (a, b), lambda g: (zeros(sa, dtype=g.dtype), zeros(sb, dtype=g.dtype)))
    return res


maximum = _select_grad("MaximumBackward0", "maximum", lambda a, b: gt(a, b))
minimum = _select_grad("MinimumBackward0", "minimum", lambda a, b: lt(a, b))


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    """msnb implementation of ``torch.clamp`` (scalar or tensor bounds)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    x = input
    if isinstance(min, TensorPy) or isinstance(max, TensorPy):
        return write_out(out, _clamp_tensor_bounds(x, min, max))
    res = x
    with _no_grad():
        if min is not None:
            res = maximum(res, min)
        if max is not None:
            res = minimum(res, max)
        if any(isinstance(v, float) and math.isnan(v) for v in (min, max)):
            res = mul(res, math.nan)  # a NaN bound makes every element NaN, as in PyTorch
    res = wrap(K.identity(res)) if res is x else res
    if not x.dtype.is_floating_point and res.dtype is not x.dtype and not (
            isinstance(min, float) or isinstance(max, float)):
        res = cast(res, x.dtype)
    if needs_grad(x):
        def bw(g):
            m = None
            if min is not None:
                m = ge(x, min)
            if max is not None:
                mm = le(x, max)
                m = mm if m is None else logical_and(m, mm)
            return (mul(g, cast(m, g.dtype)),)
        record("ClampBackward1", res, (x,), bw, saved=(x,))
    return write_out(out, res)


clip = clamp


def _clamp_tensor_bounds(x, lo, hi):
    """``clamp`` with a tensor bound: ``minimum(maximum(x, lo), hi)`` (NaN anywhere gives NaN, as
    in PyTorch), differentiable in ``x`` and the bounds with PyTorch's masks (``ClampBackward0``:
    an element whose comparisons are all false, a NaN, passes no gradient to any of them)."""
    with _no_grad():
        res = x if lo is None else maximum(x, lo)
        res = res if hi is None else minimum(res, hi)
    if needs_grad(x, lo, hi):
        def bw(g):
            zero = 0.0
            if lo is not None and hi is not None:
                gx = where(logical_and(ge(x, lo), le(x, hi)), g, zero)
                glo = where(logical_and(lt(x, lo), lt(lo, hi)), g, zero)
                ghi = where(logical_or(gt(x, hi), lt(hi, lo)), g, zero)
            elif lo is not None:
                gx, glo, ghi = where(ge(x, lo), g, zero), where(lt(x, lo), g, zero), None
            else:
                gx, glo, ghi = where(le(x, hi), g, zero), None, where(gt(x, hi), g, zero)
            return tuple(sum_to(gr, _shape(t)) if _rg(t) else None for gr, t in ((gx, x), (glo, lo), (ghi, hi)))
        record("ClampBackward0", res, (x, lo, hi), bw, saved=tuple(t for t in (x, lo, hi) if isinstance(t, TensorPy)))
    return res


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


def where(condition, input=None, other=None, *, out=None):
    """msnb implementation of ``torch.where`` (three-argument form; one-argument = nonzero)."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    a, b, rt = binary_operands(input, other)
    if condition.dtype not in (D.bool, D.uint8):
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{D._name_of(condition.dtype)}")
    cond = condition if condition.dtype is D.bool else cast(condition, D.bool)
    if not isinstance(a, TensorPy):
        from .creation import tensor
        a = tensor(a, dtype=rt)
    if not isinstance(b, TensorPy):
        from .creation import tensor
        b = tensor(b, dtype=rt)
    sc, sa, sb = shape_of(cond), shape_of(a), shape_of(b)
    sh = sa if sa == sb else broadcast_shape(sa, sb)
    sh = sh if sc == sh else broadcast_shape(sc, sh)
    res = wrap(K.where(cond, a, b))
    if id(rt) in _FIB:
        meta(res, rt, sh)
    if needs_grad(a, b):
        sa, sb = _shape(a), _shape(b)
        record("WhereBackward0", res, (a, b),
               lambda g: (sum_to(where(cond, g, 0.0), sa), sum_to(where(cond, 0.0, g), sb)))
    return write_out(out, res)


def lerp(input, end, weight):
    """``input + weight * (end - input)`` for ``|weight| < 0.5``, else ``end - (end - input) * (1 - weight)``
    (PyTorch's two-sided form: exact at ``weight == 1``, and ``lerp(-inf, 1, 0.9)`` is -inf, not NaN)."""
    from ..autograd.graph import name_node
    diff = sub(end, input)
    near_end = sub(end, mul(diff, sub(1, weight)))
    if isinstance(weight, TensorPy):
        res = where(lt(abs(weight), 0.5), add(input, mul(weight, diff)), near_end)
    else:
        res = add(input, mul(weight, diff)) if builtins_abs(weight) < 0.5 else near_end
    return name_node(res, "LerpBackward1" if isinstance(weight, TensorPy) else "LerpBackward0", input, end, weight)


def addcmul(input, tensor1, tensor2, *, value=1):
    return add(input, mul(mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, *, value=1):
    return add(input, mul(div(tensor1, tensor2), value))


def _compare(kname):
    def op(input, other, *, out=None):
        kernel = getattr(K, kname)
        a, b, rt = binary_operands(input, other)
        return write_out(out, _call2(kernel, a, b, D.bool if id(rt) in _FIB else None, _BOOL))
    return op


_BOOL = frozenset((id(D.bool),))
eq = _compare("eq")
ne = not_equal = _compare("ne")
lt = less = _compare("lt")
le = less_equal = _compare("le")
gt = greater = _compare("gt")
ge = greater_equal = _compare("ge")


def _logical(kname):
    def op(input, other, *, out=None):
        kernel = getattr(K, kname)
        b = cast(other, D.bool) if isinstance(other, TensorPy) else bool(other)
        return write_out(out, _call2(kernel, cast(input, D.bool), b, D.bool, _BOOL))
    return op


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


def logical_not(input, *, out=None):
    x = cast(input, D.bool)
    return write_out(out, meta(wrap(K.logical_not(x)), D.bool, shape_of(x)))


def _bitwise(kname, logical):
    def op(input, other, *, out=None):
        kernel = getattr(K, kname)
        if not isinstance(input, TensorPy) and isinstance(other, TensorPy):  # PyTorch's (Scalar, Tensor) overload
            input, other = other, input  # and, or, xor commute
        if input.dtype is D.bool and (not isinstance(other, TensorPy) or other.dtype is D.bool):
            return logical(input, other, out=out)
        a, b, rt = binary_operands(input, other)
        if rt.is_floating_point or rt.is_complex:
            raise NotImplementedError(f'"{kname}_cpu" not implemented for '
                                      f"'{repr(rt).split('.')[-1].capitalize()}'")
        return write_out(out, wrap(kernel(a, b)))
    return op


bitwise_and = _bitwise("bitwise_and", logical_and)
bitwise_or = _bitwise("bitwise_or", logical_or)
bitwise_xor = _bitwise("bitwise_xor", logical_xor)


def bitwise_not(input):
    if input.dtype is D.bool:
        return logical_not(input)
    return sub(neg(input), 1)


def _all_bool(input, value):
    """Integer and bool tensors are never NaN or infinite (MindSpore has no integer kernels here)."""
    return wrap(K.fill(D.bool, tuple(input.shape), value))


def isnan(input):
    if not input.dtype.is_floating_point:
        return _all_bool(input, False)
    return wrap(K.isnan(input))


def isinf(input):
    if not input.dtype.is_floating_point:
        return _all_bool(input, False)
    return wrap(K.isinf(input))


def isfinite(input):
    if not input.dtype.is_floating_point:
        return _all_bool(input, True)
    return wrap(K.isfinite(input))


def signbit(input):
    """msnb implementation of ``torch.signbit`` (true for -0.0 as well)."""
    neg_ = lt(input, 0)
    if not input.dtype.is_floating_point:
        return neg_
    return logical_or(neg_, logical_and(eq(input, 0), lt(reciprocal(input.detach()), 0)))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if not input.dtype.is_floating_point:  # integers and booleans are never NaN or infinite
        from .shape import clone
        return clone(input)
    fi = D.finfo(input.dtype)
    x = where(isnan(input), nan, input)
    x = where(logical_and(isinf(x), gt(x, 0)), fi.max if posinf is None else posinf, x)
    return where(logical_and(isinf(x), lt(x, 0)), fi.min if neginf is None else neginf, x)


def equal(input, other) -> bool:
    """msnb implementation of ``torch.equal``."""
    return tuple(input.shape) == tuple(other.shape) and bool(eq(input, other).all().item())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """msnb implementation of ``torch.isclose`` (equal infinities are close, as in PyTorch)."""
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    with _no_grad():
        close = eq(input, other)
        if equal_nan:
            close = logical_or(close, logical_and(isnan(input), isnan(other)))
        if input.dtype is D.bool and (not isinstance(other, TensorPy) or other.dtype is D.bool):
            return close
        err = abs(sub(input, other))
        within = logical_and(isfinite(err), le(err, add(abs(mul(other, rtol)), atol)))
        return logical_or(close, within)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())
