"""Random numbers: ``manual_seed``, ``Generator`` and the sampling functions.

Draws come from numpy's PCG64 on the host, seeded by ``torch.manual_seed`` or a
``torch.Generator``, so a seed gives the same numbers on every device.  They
are not PyTorch's streams: the same seed gives different numbers than
PyTorch (which no test relies on)."""

from __future__ import annotations

import functools

import numpy as np

from ...graph import capture as _graph_capture
from .. import _dtype as D
from .._core import TensorPy, inplace
from .creation import _finish, size_args

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like",
           "randn_like", "randint_like", "uniform_", "normal_", "bernoulli_", "random_", "exponential_",
           "default_generator", "poisson"]


class Generator:
    """msnb implementation of ``torch.Generator``."""

    def __init__(self, device="cpu"):
        self.device = device
        self._seed = 67280421310721
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._rng = np.random.Generator(np.random.PCG64(self._seed & 0xFFFFFFFFFFFFFFFF))
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy & 0xFFFFFFFFFFFFFFFF)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        from .creation import tensor
        state = self._rng.bit_generator.state
        raw = np.frombuffer(repr(state).encode(), dtype=np.uint8)
        return tensor(raw.copy())

    def set_state(self, new_state):
        import ast
        state = ast.literal_eval(bytes(new_state.numpy().astype(np.uint8)).decode())
        self._rng.bit_generator.state = state
        return self


default_generator = Generator()


def _feedable(fn):
    """Graph mode may feed this sampler's draws to a compiled graph (see
    ``graph.capture.Recording.feed``); otherwise it is ``fn`` itself."""
    @functools.wraps(fn)
    def sampler(*args, **kwargs):
        if _graph_capture._CURRENT[0] is not None:
            return _graph_capture.feed(fn, args, kwargs)
        return fn(*args, **kwargs)
    return sampler


def _g(generator):
    if _graph_capture._CURRENT[0] is not None:  # graph mode is recording: a replay would reuse the draw
        _graph_capture.host_random()
    return (generator or default_generator)._rng


def manual_seed(seed):
    """msnb implementation of ``torch.manual_seed``; also seeds the adapter's
    MindSpore-side randomness (dropout masks are drawn from here too)."""
    default_generator.manual_seed(seed)
    return default_generator


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def _float_dtype(dtype):
    d = D.to_torch_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if not d.is_floating_point:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{D._name_of(d)}'")
    return d


@_feedable
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """msnb implementation of ``torch.rand``."""
    d = _float_dtype(dtype)
    return _finish(_g(generator).random(size_args(size)).astype(d.numpy), d, requires_grad)


@_feedable
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    """msnb implementation of ``torch.randn``."""
    d = _float_dtype(dtype)
    return _finish(_g(generator).standard_normal(size_args(size)).astype(d.numpy), d, requires_grad)


@_feedable
def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """msnb implementation of ``torch.randint``: ``randint(10, (2, 2))`` and ``randint(0, 10, (2, 2))``."""
    if size is None:
        if isinstance(high, (tuple, list)):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    if high is None:
        low, high = 0, low
    d = D.to_torch_dtype(dtype) if dtype is not None else D.int64
    arr = _g(generator).integers(int(low), int(high), size=tuple(size))
    return _finish(arr.astype(d.numpy), d, requires_grad)


@_feedable
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    d = D.to_torch_dtype(dtype) if dtype is not None else D.int64
    return _finish(_g(generator).permutation(int(n)).astype(d.numpy), d, requires_grad)


@_feedable
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """msnb implementation of ``torch.normal``: tensor means/stds, or scalars with ``size``."""
    if isinstance(mean, TensorPy) or isinstance(std, TensorPy):
        m = mean.numpy() if isinstance(mean, TensorPy) else mean
        s = std.numpy() if isinstance(std, TensorPy) else std
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        ref = mean if isinstance(mean, TensorPy) else std
        d = ref.dtype
        arr = _g(generator).normal(m, s, size=shape).astype(d.numpy)
        return _finish(arr, d, requires_grad)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments: with float mean and std, "
                        "size is required")
    d = _float_dtype(dtype)
    return _finish(_g(generator).normal(mean, std, size=size_args((size,))).astype(d.numpy), d, requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None):
    """msnb implementation of ``torch.bernoulli``."""
    if p is not None:
        return _bernoulli_p(tuple(input.shape), p, input.dtype, generator)
    probs = input.numpy()
    arr = (_g(generator).random(probs.shape) < probs).astype(input.dtype.numpy)
    return _finish(arr, input.dtype)


@_feedable
def _bernoulli_p(shape, p, dtype, generator=None):
    return _finish((_g(generator).random(shape) < p).astype(dtype.numpy), dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    probs = input.detach().numpy().astype(np.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    out = []
    for r in rows:
        r = r / r.sum()
        out.append(_g(generator).choice(len(r), size=num_samples, replace=replacement, p=r))
    arr = np.stack(out).astype(np.int64)
    return _finish(arr.reshape(probs.shape[:-1] + (num_samples,)), D.int64)


def poisson(input, generator=None):
    return _finish(_g(generator).poisson(input.numpy()).astype(input.dtype.numpy), input.dtype)


def rand_like(input, *, dtype=None, **kw):
    return rand(tuple(input.shape), dtype=dtype or input.dtype)


def randn_like(input, *, dtype=None, **kw):
    return randn(tuple(input.shape), dtype=dtype or input.dtype)


def randint_like(input, low=0, high=None, *, dtype=None, **kw):
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype)


# in-place samplers (Tensor methods) ------------------------------------------
def _fill_from(self, arr):
    from ..autograd.grad_mode import no_grad
    with no_grad():
        return inplace(self, _finish(arr.astype(self.dtype.numpy), self.dtype))


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """msnb implementation of ``Tensor.uniform_``."""
    return _fill_from(self, _g(generator).uniform(a, b, size=tuple(self.shape)))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """msnb implementation of ``Tensor.normal_``."""
    return _fill_from(self, _g(generator).normal(mean, std, size=tuple(self.shape)))


def bernoulli_(self, p=0.5, *, generator=None):
    return _fill_from(self, (_g(generator).random(tuple(self.shape)) < p))


#: ``random_()`` without bounds draws from [0, 2**digits]: every integer the dtype holds exactly
_RANDOM_TOP = {"float16": 2 ** 11, "bfloat16": 2 ** 8, "float32": 2 ** 24, "float64": 2 ** 53}


def random_(self, from_=0, to=None, *, generator=None):
    """msnb implementation of ``Tensor.random_``: ``random_(to)`` draws from
    [0, to), ``random_(from, to)`` from [from, to), ``random_()`` from
    [0, 2**mantissa] (floats) or [0, max] (integers)."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    elif to is None:
        d = self.dtype
        to = _RANDOM_TOP[d._name] + 1 if d.is_floating_point else (
            2 if d is D.bool else int(np.iinfo(d.numpy).max))
    return _fill_from(self, _g(generator).integers(from_, to, size=tuple(self.shape)))


def exponential_(self, lambd=1.0, *, generator=None):
    return _fill_from(self, _g(generator).exponential(1.0 / lambd, size=tuple(self.shape)))
