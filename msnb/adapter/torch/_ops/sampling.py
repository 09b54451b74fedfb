"""PyTorch's CPU sampling transforms, vectorised with numpy (host arrays only).

Each function takes a :class:`~.generator.Generator`, consumes its raw words
in the order PyTorch 2.13's CPU kernels do (elements in memory order) and
returns a numpy array; :mod:`.random` turns it into one tensor.  The
transforms are PyTorch's documented ones:

- uniform floats keep the low 24 (float32) or 53 (float64) bits of one 32-bit
  or one 64-bit draw, times 2**-bits, then ``x * (to - from) + from``;
- integers in a range take ``draw % range + from``, with 64-bit draws once
  the range reaches 2**28;
- normals of 16 or more contiguous elements fill uniforms first and turn
  each block of 16 into 8 Box-Muller pairs (float32 with the vectorised
  Cephes log/sincos of PyTorch's AVX2 kernel, float64 with libm; a ragged
  end recomputes the last 16 from fresh uniforms); fewer than 16 elements
  use the scalar double Box-Muller with its cached second sample;
- exponential, geometric, Cauchy, log-normal, Bernoulli draw a 53-bit double
  uniform per element (Bernoulli with float probabilities a 24-bit one);
- ``randperm`` is a forward Fisher-Yates shuffle (``random() % (n - i)``)
  below 2**32 / 20 elements and the 64-bit inside-out shuffle above;
- multinomial: cumulative sums and a binary search per draw (with
  replacement), or ``argmax``/``topk`` of ``p / Exp(1)`` (without).

float16 / bfloat16 compute in float, PyTorch's accumulate type: uniforms are
float's (24 bits) rounded to the dtype; normals are the float32 Box-Muller
blocks drawn block by block (a ragged end recomputes the last 16 from the 16
uniforms after the last full block), then rounded.  A non-contiguous tensor
takes the scalar path for every element (:func:`normal_serial`), as
PyTorch's TensorIterator kernel does; :mod:`.random` lays the draws out in
storage order."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["uniform", "normal", "normal_serial", "int_from_to", "int_full", "bernoulli_scalar", "bernoulli_probs", "exponential",
           "geometric", "cauchy", "log_normal", "randperm", "multinomial", "poisson", "MANTISSA"]

#: mantissa digits (``std::numeric_limits<T>::digits``) by torch dtype name
MANTISSA = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_f32 = np.float32


def _unit(g, n, name):
    """``n`` uniforms in [0, 1): float32 arithmetic from 32-bit draws, float64 from 64-bit ones."""
    bits = MANTISSA[name]
    if bits == 53:
        return (g.random64(n) & np.uint64(2 ** 53 - 1)).astype(np.float64) * (2.0 ** -53)
    return (g.random32(n) & np.uint64(2 ** bits - 1)).astype(np.float32) * _f32(2.0 ** -bits)


def _unit53(g, n):
    return _unit(g, n, "float64")


def _storage(name):
    return np.float64 if name == "float64" else np.float32


def uniform(g, n, name, low=0.0, high=1.0):
    """``Tensor.uniform_``: arithmetic in the accumulate type (float for the half
    types: 24-bit uniforms, float bounds), then rounded to the dtype, where a value
    rounded up to ``high`` becomes ``low`` (PyTorch 2.13's clamp)."""
    st = _storage(name)
    lo, hi = st(low), st(high)
    u = _unit(g, n, "float32" if name in ("float16", "bfloat16") else name)
    if st is np.float64:
        return _fma64(u, hi - lo, lo)
    v = _fma32(u, hi - lo, lo)  # the compiled kernel fuses the multiply-add
    if name not in ("float16", "bfloat16"):
        return v
    v = _round_to(v, name)
    return np.where(v == _round_to(np.float32(high), name), _round_to(np.float32(low), name), v)


def _round_to(v, name):
    """float32 values rounded to float16 / bfloat16 (nearest, ties to even), kept as float32."""
    v = np.asarray(v, dtype=np.float32)
    if name == "float16":
        return v.astype(np.float16).astype(np.float32)
    b = v.view(np.uint32)
    b = (b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return b.view(np.float32)


# --- normals ------------------------------------------------------------------------------
def _fma64(a, b, c):
    """``fma(a, b, c)`` in float64 (error-free product, then one compensated sum)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    p = a * b
    split = 134217729.0  # 2**27 + 1: Veltkamp split
    ta = split * a
    ah = ta - (ta - a)
    al = a - ah
    tb = split * b
    bh = tb - (tb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def _fma32(a, b, c):
    """``fma(a, b, c)`` for float32 operands: exact product in float64, one sum, rounded."""
    return (np.asarray(a, np.float64) * np.float64(b) + np.asarray(c, np.float64)).astype(np.float32)


_LOG_P = [7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
          -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1]


def _log_avx(x):
    """Natural log of float32 ``x`` > 0 as PyTorch's AVX2 kernel computes it (Cephes
    polynomial, with the fused multiply-adds the compiled kernel uses)."""
    x = np.maximum(x, np.array(0x00800000, np.int32).view(np.float32))
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(np.float32) + _f32(1)
    m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
    small = m < _f32(0.707106781186547524)
    m = (m - _f32(1)) + np.where(small, m, _f32(0))
    e = e - np.where(small, _f32(1), _f32(0))
    z = m * m
    y = np.full_like(m, _f32(_LOG_P[0]))
    for p in _LOG_P[1:]:
        y = _fma32(y, m, _f32(p))
    y = _fma32(y * m, z, e * _f32(-2.12194440e-4))
    y = y - z * _f32(0.5)
    return (m + y) + e * _f32(0.693359375)


def _sincos_avx(x):
    """sin and cos of float32 ``x`` >= 0 as PyTorch's AVX2 kernel computes them."""
    y = x * _f32(1.27323954473516)
    j = (y.astype(np.int32) + 1) & ~1
    y = j.astype(np.float32)
    x = x + y * _f32(-0.78515625)
    x = x + y * _f32(-2.4187564849853515625e-4)
    x = _fma32(y, _f32(-3.77489497744594108e-8), x)
    z = x * x
    c = _fma32(np.full_like(z, _f32(2.443315711809948E-005)), z, _f32(-1.388731625493765E-003))
    c = _fma32(c, z, _f32(4.166664568298827E-002)) * z
    c = _fma32(c, z, -(z * _f32(0.5))) + _f32(1)
    s = _fma32(np.full_like(z, _f32(-1.9515295891E-4)), z, _f32(8.3321608736E-3))
    s = _fma32(s, z, _f32(-1.6666654611E-1)) * z
    s = _fma32(s, x, x)
    first = (j & 2) == 0
    sin, cos = np.where(first, s, c), np.where(first, c, s)
    return np.where((j & 4) != 0, -sin, sin), np.where(((~(j - 2)) & 4) != 0, -cos, cos)


def _box_muller_16(u, mean, std, name):
    """Blocks of 16 uniforms (rows) -> 16 normals: u[:8] give radii, u[8:] angles."""
    if name == "float64":
        radius = np.sqrt(-2.0 * np.log(1.0 - u[:, :8]))
        theta = (2.0 * math.pi) * u[:, 8:]
        a, b = radius * np.cos(theta), radius * np.sin(theta)
        return np.concatenate([_fma64(a, std, mean), _fma64(b, std, mean)], axis=1)
    radius = np.sqrt(_f32(-2) * _log_avx(_f32(1) - u[:, :8]))
    sin, cos = _sincos_avx(_f32(2.0 * math.pi) * u[:, 8:])
    mean, std = _f32(mean), _f32(std)
    return np.concatenate([_fma32(radius * cos, std, mean), _fma32(radius * sin, std, mean)], axis=1)


def _normal_scalar(g, mean, std):
    """One double normal: the cached sample, or a Box-Muller pair (cos now, sin cached)."""
    if g.next_double_normal is not None:
        z, g.next_double_normal = g.next_double_normal, None
    else:
        u1, u2 = _unit53(g, 2)
        r = math.sqrt(-2.0 * math.log1p(-float(u2)))
        theta = 2.0 * math.pi * float(u1)
        g.next_double_normal = r * math.sin(theta)
        z = r * math.cos(theta)
    return float(_fma64(z, std, mean))


def normal_serial(g, n, name, mean=0.0, std=1.0):
    """``n`` normals one at a time (double Box-Muller, cached second sample), cast to the dtype."""
    return np.array([_normal_scalar(g, mean, std) for _ in range(n)], dtype=np.float64).astype(_storage(name))


def normal(g, n, name, mean=0.0, std=1.0):
    """``Tensor.normal_`` on ``n`` contiguous elements."""
    if n < 16:
        return normal_serial(g, n, name, mean, std)
    kind = "float64" if name == "float64" else "float32"
    full = n // 16 * 16
    # float/double draw every uniform first (a ragged end's are drawn and then overwritten);
    # half types draw only the full blocks' before the recomputed last 16
    u = _unit(g, n if name in ("float32", "float64") else full, kind)
    out = np.empty(n, dtype=u.dtype)
    out[:full] = _box_muller_16(u[:full].reshape(-1, 16), mean, std, kind).reshape(-1)
    if n % 16:
        out[n - 16:] = _box_muller_16(_unit(g, 16, kind).reshape(1, 16), mean, std, kind).reshape(-1)
    return out


# --- integers -----------------------------------------------------------------------------
def int_from_to(g, n, low, high):
    """``random_(from, to)`` / ``randint``: ``draw % (to - from) + from`` (int64 results)."""
    span = int(high) - int(low)
    if span <= 0:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if span >= 2 ** 64:
        raise RuntimeError("msnb: random ranges of 2**64 or more are not supported by msnb yet")
    draws = g.random64(n) if span >= 2 ** 28 else g.random32(n)
    return (draws % np.uint64(span)).astype(np.int64) + np.int64(low)


def int_full(g, n, name, kind, maxval):
    """``random_()`` without bounds: [0, 2**mantissa] (floats), [0, max] (integers), {0, 1} (bool)."""
    if name == "bool":
        return (g.random32(n) & np.uint64(1)).astype(np.int64)
    if kind == "float":
        bits = MANTISSA[name]
        draws = g.random64(n) if bits == 53 else g.random32(n)
        return (draws % np.uint64(2 ** bits + 1)).astype(np.int64)
    draws = g.random64(n) if name == "int64" else g.random32(n)
    return (draws % np.uint64(int(maxval) + 1)).astype(np.int64)


def randperm(g, n):
    """``torch.randperm(n)``: PyTorch switches shuffle at 2**32 / 20 elements."""
    n = int(n)
    if n < (2 ** 32 - 1) // 20:
        perm = np.arange(n, dtype=np.int64)
        if n < 2:
            return perm
        offs = (g.random32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
        for i, z in enumerate(offs.tolist()):
            if z:
                j = i + z
                perm[i], perm[j] = perm[j], perm[i]
        return perm
    perm = np.empty(n, dtype=np.int64)
    picks = (g.random64(n) % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64)
    for i, z in enumerate(picks.tolist()):
        perm[i] = perm[z]
        perm[z] = i
    return perm


# --- other distributions --------------------------------------------------------------------
def bernoulli_scalar(g, n, p):
    """``bernoulli_(p)`` with a float ``p``: one double uniform per element, ``u < p``."""
    return _unit53(g, n) < float(p)


def bernoulli_probs(g, probs):
    """``bernoulli`` with a tensor of probabilities: float64 probabilities compare to
    53-bit uniforms, the other float dtypes to 24-bit ones."""
    flat = np.asarray(probs).reshape(-1)
    u = _unit53(g, flat.size) if flat.dtype == np.float64 else _unit(g, flat.size, "float32")
    return (u < flat.astype(u.dtype)).reshape(np.shape(probs))


def exponential(g, n, lambd):
    return -1.0 / float(lambd) * np.log1p(-_unit53(g, n))


def geometric(g, n, p):
    return np.ceil(np.log(_unit53(g, n)) / math.log1p(-float(p)))


def cauchy(g, n, median, sigma):
    return float(median) + float(sigma) * np.tan(math.pi * (_unit53(g, n) - 0.5))


def log_normal(g, n, mean, std):
    return np.array([math.exp(_normal_scalar(g, mean, std)) for _ in range(int(n))], dtype=np.float64)


def multinomial(g, probs, num_samples, replacement):
    """Rows of category indices (int64), PyTorch's two algorithms."""
    rows = np.asarray(probs)
    rows2 = rows.reshape(-1, rows.shape[-1])
    acc = np.float64 if rows2.dtype == np.float64 else np.float32
    rows2 = rows2.astype(acc)
    if not replacement or num_samples == 1:
        q = exponential(g, rows2.size, 1.0).astype(acc).reshape(rows2.shape)
        score = rows2 / q
        if num_samples == 1:
            out = np.argmax(score, axis=-1)[:, None]
        else:
            out = np.argsort(-score, axis=-1, kind="stable")[:, :num_samples]
        return out.astype(np.int64).reshape(rows.shape[:-1] + (num_samples,))
    out = np.empty((rows2.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows2):
        cum = np.add.accumulate(row, dtype=acc)
        cum = cum / cum[-1]
        cum[-1] = 1
        u = _unit53(g, num_samples)
        out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return out.reshape(rows.shape[:-1] + (num_samples,))


def _uniform_one(g):
    return float(_unit53(g, 1)[0])


def _poisson_one(g, lam):
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform_one(g) - 0.5
            v = _uniform_one(g)
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= \
                    (-lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam, x, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= _uniform_one(g)
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(g, rates):
    """``torch.poisson``: PyTorch's transformed rejection (rate >= 10) or product-of-uniforms sampler."""
    flat = np.asarray(rates, dtype=np.float64).reshape(-1)
    if (flat < 0).any() or np.isnan(flat).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return np.array([_poisson_one(g, float(v)) for v in flat], dtype=np.float64).reshape(np.shape(rates))
