"""Every tensor sampler against real PyTorch: same seed, same values (integers
exactly, floats to the last bit), for float32 and float64, and at the sizes
where PyTorch switches algorithm (randn below / from 16 elements, randint's
64-bit draws from a 2**28 range)."""

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt

SEEDS = [0, 2024]
DTYPES = ["float32", "float64"]


def same(fn, seed, *, generator=False):
    """Run ``fn(torch)`` after the same seed in both libraries: the same draws (integers
    identical; floats to a relative 1e-13 (float64) / 1e-6 (float32): a normal draw goes through
    log/sqrt/cos, and PyTorch's vectorized libm rounds those by the host's CPU, one ulp off
    numpy's now and then, which cauchy's tan near pi/2 magnifies to ~30 ulp; another stream
    would differ in the first digit), and
    identical generator states afterwards (the same numbers of the stream were used)."""
    real.manual_seed(seed)
    mt.manual_seed(seed)
    r, m = fn(real), fn(mt)
    r = r.detach().numpy() if hasattr(r, "detach") else np.asarray(r)
    m = m.detach().numpy() if hasattr(m, "detach") else np.asarray(m)
    assert r.dtype == m.dtype and r.shape == m.shape
    if r.dtype.kind == "f" and not np.array_equal(m, r, equal_nan=True):
        np.testing.assert_allclose(m, r, rtol=1e-13 if r.dtype == np.float64 else 1e-6, atol=0)
    else:
        np.testing.assert_array_equal(m, r)
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), real.get_rng_state().numpy())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 33, 1000])
def test_rand_randn(seed, dt, n):
    same(lambda t: t.rand(n, dtype=getattr(t, dt)), seed)
    same(lambda t: t.randn(n, dtype=getattr(t, dt)), seed)
    same(lambda t: t.randn(2, n, dtype=getattr(t, dt)), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", DTYPES)
def test_in_place_float_samplers(seed, dt):
    for n in (5, 40):
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).uniform_(-2.5, 0.75), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).normal_(0.3, 2.7), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).exponential_(1.7), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).geometric_(0.3), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).log_normal_(0.5, 0.8), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).cauchy_(1.0, 2.0), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).bernoulli_(0.3), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).bernoulli_(t.rand(n, dtype=getattr(t, dt))), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).random_(), seed)
        same(lambda t: t.empty(n, dtype=getattr(t, dt)).random_(3, 90), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("high", [2, 10, 2 ** 28 - 1, 2 ** 28, 2 ** 31, 2 ** 40])
def test_randint_across_the_64_bit_switch(seed, high):
    same(lambda t: t.randint(0, high, (50,)), seed)
    same(lambda t: t.randint(-5, high, (3, 4), dtype=t.int64), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "int32", "int64", "bool"])
def test_random_integer_dtypes(seed, dt):
    same(lambda t: t.empty(33, dtype=getattr(t, dt)).random_(), seed)
    if dt != "bool":
        same(lambda t: t.empty(33, dtype=getattr(t, dt)).random_(0, 7), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000, 60000])
def test_randperm(seed, n):
    same(lambda t: t.randperm(n), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_like_and_normal_overloads(seed):
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    same(lambda t: t.rand_like(t.tensor(x)), seed)
    same(lambda t: t.randn_like(t.tensor(x, dtype=t.float64)), seed)
    same(lambda t: t.randint_like(t.tensor(x), 3, 9), seed)
    same(lambda t: t.normal(t.tensor(x), t.tensor(x + 1)), seed)
    same(lambda t: t.normal(t.tensor(x), 2.5), seed)
    same(lambda t: t.normal(1.5, t.tensor(x)), seed)
    same(lambda t: t.normal(0.5, 3.0, (6, 7)), seed)
    same(lambda t: t.normal(0.5, 3.0, size=(3,), dtype=t.float64), seed)
    same(lambda t: t.randn(size=(2, 9)), seed)  # d2l writes torch.randn(size=...)
    same(lambda t: t.rand(size=[17], dtype=t.float64), seed)
    same(lambda t: t.randn(size=()), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_bernoulli_multinomial_poisson(seed):
    p = np.linspace(0.05, 0.95, 24, dtype=np.float32).reshape(4, 6)
    same(lambda t: t.bernoulli(t.tensor(p)), seed)
    same(lambda t: t.bernoulli(t.tensor(p, dtype=t.float64)), seed)
    same(lambda t: t.bernoulli(t.tensor(p), 0.25), seed)
    same(lambda t: t.multinomial(t.tensor(p), 20, replacement=True), seed)
    same(lambda t: t.multinomial(t.tensor(p), 4, replacement=False), seed)
    same(lambda t: t.multinomial(t.tensor(p[0], dtype=t.float64), 1), seed)
    same(lambda t: t.poisson(t.tensor([0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 300.0])), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_explicit_generator_argument(seed):
    def fn(t):
        g = t.Generator().manual_seed(seed + 1)
        return t.cat([t.rand(3, generator=g), t.randn(20, generator=g),
                      t.randperm(5, generator=g).float(), t.randint(0, 9, (4,), generator=g).float()])
    same(fn, seed)
