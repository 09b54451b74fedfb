"""Random numbers: ``manual_seed``, ``Generator`` and the sampling functions.

The generator is PyTorch's CPU mt19937 (:mod:`.generator`) and every sampler
consumes it as PyTorch 2.13's CPU kernels do (:mod:`.sampling`), so after
``torch.manual_seed(s)`` msnb draws PyTorch's numbers, on every device.  Draws
are made on the host with numpy and moved to MindSpore once per call."""

from __future__ import annotations

import functools

import numpy as np

from ...graph import capture as _graph_capture
from .. import _dtype as D
from .._core import TensorPy, inplace
from . import sampling as S
from .creation import _finish, refuse_meta, size_args, size_keyword
from .generator import Generator, default_generator

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like",
           "randn_like", "randint_like", "uniform_", "normal_", "bernoulli_", "random_", "exponential_",
           "geometric_", "log_normal_", "cauchy_", "default_generator", "poisson", "gen"]


def _feedable(fn):
    """Graph mode may feed this sampler's draws to a compiled graph (see
    ``graph.capture.Recording.feed``); otherwise it is ``fn`` itself."""
    @functools.wraps(fn)
    def sampler(*args, **kwargs):
        if _graph_capture._CURRENT[0] is not None:
            return _graph_capture.feed(fn, args, kwargs)
        return fn(*args, **kwargs)
    return sampler


#: ``[hook]``: torch.func.vmap's ``randomness`` policy, told of every draw (None outside vmap)
DRAW_HOOK = [None]


def gen(generator=None) -> Generator:
    """The generator a draw uses (``generator`` or the default one)."""
    if DRAW_HOOK[0] is not None:
        DRAW_HOOK[0](generator if generator is not None else default_generator)
    if _graph_capture._CURRENT[0] is not None:  # graph mode is recording: a replay would reuse the draw
        _graph_capture.host_random()
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator


def manual_seed(seed):
    """msnb implementation of ``torch.manual_seed``: PyTorch's streams from here on."""
    default_generator.manual_seed(seed)
    return default_generator


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def _float_dtype(dtype):
    d = D.to_torch_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if not d.is_floating_point:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{D._name_of(d)}'")
    return d


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _make(arr, shape, d, requires_grad=False):
    return _finish(np.asarray(arr).astype(d.numpy).reshape(shape), d, requires_grad)


@_feedable
@size_keyword
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """msnb implementation of ``torch.rand``."""
    d, shape = _float_dtype(dtype), size_args(size)
    return _make(S.uniform(gen(generator), _numel(shape), d._name), shape, d, requires_grad)


@_feedable
@size_keyword
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    """msnb implementation of ``torch.randn`` (PyTorch's algorithm below and from 16 elements)."""
    d, shape = _float_dtype(dtype), size_args(size)
    return _make(S.normal(gen(generator), _numel(shape), d._name), shape, d, requires_grad)


@_feedable
def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """msnb implementation of ``torch.randint``: ``randint(10, (2, 2))`` and ``randint(0, 10, (2, 2))``."""
    refuse_meta(device)
    if size is None:
        if isinstance(high, (tuple, list)) or hasattr(high, "__len__"):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    if high is None:
        low, high = 0, low
    d = D.to_torch_dtype(dtype) if dtype is not None else D.int64
    shape = size_args((size,))
    return _make(S.int_from_to(gen(generator), _numel(shape), int(low), int(high)), shape, d, requires_grad)


@_feedable
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """msnb implementation of ``torch.randperm``."""
    d = D.to_torch_dtype(dtype) if dtype is not None else D.int64
    n = int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    return _make(S.randperm(gen(generator), n), (n,), d, requires_grad)


def _host(x):
    return x.detach().numpy() if isinstance(x, TensorPy) else np.asarray(x)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """msnb implementation of ``torch.normal``: every overload, PyTorch's arithmetic
    (standard normals scaled by ``std``, then ``mean`` added, in the tensor's dtype)."""
    mt, st = isinstance(mean, TensorPy), isinstance(std, TensorPy)
    if not (mt or st):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: with float mean and std, "
                            "size is required")
        return _normal_sized(float(mean), float(std), size_args((size,)), generator, dtype, requires_grad)
    d = (mean if mt else std).dtype
    if not d.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{D._name_of(d)}'")
    m, s = _host(mean).astype(d.numpy), _host(std).astype(d.numpy)
    if st and (s < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    g = gen(generator)
    if mt and not st:
        shape = np.shape(m)
        z = S.normal(g, _numel(shape), d._name, 0.0, float(std)).reshape(shape)
        return _make(z + m, shape, d)
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    z = S.normal(g, _numel(shape), d._name).reshape(shape)
    return _make(z * s + m, shape, d)


@_feedable
def _normal_sized(mean, std, shape, generator, dtype, requires_grad):
    d = _float_dtype(dtype)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _make(S.normal(gen(generator), _numel(shape), d._name, mean, std), shape, d, requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None):
    """msnb implementation of ``torch.bernoulli`` (probabilities from ``input``, or ``p``)."""
    if p is not None:
        return _bernoulli_p(tuple(input.shape), float(p), input.dtype, generator)
    probs = input.detach().numpy()
    if probs.size and ((probs < 0).any() or (probs > 1).any()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return _make(S.bernoulli_probs(gen(generator), probs), probs.shape, input.dtype)


@_feedable
def _bernoulli_p(shape, p, dtype, generator=None):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _make(S.bernoulli_scalar(gen(generator), _numel(shape), p), shape, dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """msnb implementation of ``torch.multinomial`` (PyTorch's two CPU algorithms); ``out`` must be
    int64 (checked first, as PyTorch does) and receives the draw."""
    if out is not None and out.dtype is not D.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {D._name_of(out.dtype)}")
    probs = input.detach().numpy()
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError("multinomial only supports floating-point dtypes for input")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if probs.shape[-1] > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if replacement and num_samples > 1:  # PyTorch's sampler by cumulative sums checks entry by entry
        bad = ~(probs >= 0) | ~np.isfinite(probs)
        if bad.any():
            first = probs.reshape(-1)[np.argmax(bad.reshape(-1))]
            what = "< 0" if not first >= 0 else "= infinity or NaN"
            raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {what})")
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (probs.reshape(-1, probs.shape[-1]).sum(-1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    res = _finish(S.multinomial(gen(generator), probs, int(num_samples), bool(replacement)), D.int64)
    if out is None:
        return res
    from .._core import write_out
    return write_out(out, res)


def poisson(input, generator=None):
    """msnb implementation of ``torch.poisson``."""
    return _make(S.poisson(gen(generator), input.detach().numpy()), tuple(input.shape), input.dtype)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return rand(tuple(input.shape), dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return randn(tuple(input.shape), dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device,
                   requires_grad=requires_grad)


# in-place samplers (Tensor methods) ------------------------------------------
def _memory_layout(self):
    """(contiguous, order) of ``self`` in its storage: PyTorch's in-place samplers
    fill elements in storage order (TensorIterator's), so a transposed or strided
    view gets draw ``k`` at its ``k``-th lowest address.  ``order`` lists the
    logical flat indices by address (None when that is the logical order)."""
    base = self._vbase
    n = self.numel()
    if base is None or n < 2 or _graph_capture._CURRENT[0] is not None:  # no extra ops in a recorded graph
        return True, None
    index = _finish(np.arange(base.numel(), dtype=np.int64).reshape(tuple(base.shape)), D.int64)
    address = self._vfn(index).detach().numpy().reshape(-1)
    step = np.diff(address)
    if (step == 1).all():
        return True, None
    return False, (None if (step > 0).all() else np.argsort(address, kind="stable"))


def _fill_from(self, arr, order=None):
    """Write the draws ``arr`` (in draw order) into ``self``, the ``k``-th at ``order[k]``."""
    from ..autograd.grad_mode import no_grad
    if order is not None:
        flat = np.empty_like(np.asarray(arr).reshape(-1))
        flat[order] = np.asarray(arr).reshape(-1)
        arr = flat
    with no_grad():
        return inplace(self, _make(arr, tuple(self.shape), self.dtype))


def _fill_drawn(self, draw):
    """``draw(n)`` values laid into ``self`` in PyTorch's storage order."""
    return _fill_from(self, draw(self.numel()), _memory_layout(self)[1])


def _need_float(self, name):
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}\" not implemented for '{D._name_of(self.dtype)}'")


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """msnb implementation of ``Tensor.uniform_``."""
    _need_float(self, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    g = gen(generator)
    return _fill_drawn(self, lambda n: S.uniform(g, n, self.dtype._name, a, b))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """msnb implementation of ``Tensor.normal_``."""
    _need_float(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    g = gen(generator)
    contiguous, order = _memory_layout(self)
    draw = S.normal if contiguous else S.normal_serial  # PyTorch's fill needs a contiguous tensor
    return _fill_from(self, draw(g, self.numel(), self.dtype._name, mean, std), order)


def bernoulli_(self, p=0.5, *, generator=None):
    """msnb implementation of ``Tensor.bernoulli_`` (float ``p`` or a tensor of probabilities)."""
    if isinstance(p, TensorPy):
        probs = np.broadcast_to(p.detach().numpy(), tuple(self.shape)).reshape(-1)
        g, order = gen(generator), _memory_layout(self)[1]
        return _fill_from(self, S.bernoulli_probs(g, probs if order is None else probs[order]), order)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    g = gen(generator)
    return _fill_drawn(self, lambda n: S.bernoulli_scalar(g, n, p))


def _max_of(d):
    if d.is_floating_point:
        return 2 ** S.MANTISSA[d._name]
    return 1 if d is D.bool else int(np.iinfo(d.numpy).max)


def random_(self, from_=0, to=None, *, generator=None):
    """msnb implementation of ``Tensor.random_``: ``random_(to)`` draws from
    [0, to), ``random_(from, to)`` from [from, to), ``random_()`` from
    [0, 2**mantissa] (floats) or [0, max] (integers)."""
    d, g, n = self.dtype, gen(generator), self.numel()
    if to is None and from_ == 0:
        kind = "float" if d.is_floating_point else "int"
        return _fill_drawn(self, lambda n: S.int_full(g, n, d._name, kind, _max_of(d)))
    if to is None:
        from_, to = 0, from_
    return _fill_drawn(self, lambda n: S.int_from_to(g, n, int(from_), int(to)))


def exponential_(self, lambd=1.0, *, generator=None):
    """msnb implementation of ``Tensor.exponential_``."""
    _need_float(self, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    g = gen(generator)
    return _fill_drawn(self, lambda n: S.exponential(g, n, lambd))


def geometric_(self, p, *, generator=None):
    """msnb implementation of ``Tensor.geometric_``."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    g = gen(generator)
    return _fill_drawn(self, lambda n: S.geometric(g, n, p))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """msnb implementation of ``Tensor.log_normal_``."""
    _need_float(self, "log_normal_cpu")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    g = gen(generator)
    return _fill_drawn(self, lambda n: S.log_normal(g, n, mean, std))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """msnb implementation of ``Tensor.cauchy_``."""
    _need_float(self, "cauchy_cpu")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    g = gen(generator)
    return _fill_drawn(self, lambda n: S.cauchy(g, n, median, sigma))
