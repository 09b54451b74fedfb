"""``torch.backends.cudnn.flags`` / ``set_flags`` against real PyTorch (the neural tangent
kernels tutorial wraps a computation in ``cudnn.flags(allow_tf32=False)``): every flag is
set for the block, to the defaults where not given, and restored after it, also when the
block raises; ``set_flags`` returns the previous values."""

from __future__ import annotations

import contextlib

import pytest

from ..harness import mt, real

NAMES = ("enabled", "benchmark", "deterministic", "allow_tf32")


def now(lib):
    return tuple(getattr(lib.backends.cudnn, n) for n in NAMES)


@pytest.mark.parametrize("kwargs", [{}, {"allow_tf32": False},
                                    {"enabled": True, "benchmark": True, "deterministic": True, "allow_tf32": False}],
                         ids=repr)
def test_flags_block_matches_pytorch(kwargs):
    seen = []
    for lib in (real, mt):
        before = now(lib)
        with lib.backends.cudnn.flags(**kwargs) as r:
            inside = now(lib)
        seen.append((r, inside, now(lib) == before))
    assert seen[0] == seen[1]


def test_flags_restore_after_an_exception():
    seen = []
    for lib in (real, mt):
        before = now(lib)
        with pytest.raises(KeyError):
            with lib.backends.cudnn.flags(benchmark=True, deterministic=True):
                raise KeyError("x")
        seen.append(now(lib) == before)
    assert seen == [True, True]


def _mutable(lib):
    """Real PyTorch refuses to set the flags outside a ``flags()`` block once
    ``torch.backends.disable_global_flags()`` ran, as importing ``torch.testing._internal``
    (the OpInfo replay, in the same test process) does: lift that for this test only."""
    if lib is real and real.backends.flags_frozen():
        return getattr(real.backends, "__allow_nonbracketed_mutation")()
    return contextlib.nullcontext()


def test_set_flags_returns_previous_values():
    seen = []
    for lib in (real, mt):
        with _mutable(lib):
            before = now(lib)
            # other tests in this process may leave either library's flags set
            # (``cudnn.benchmark = True`` is what user code does): start both alike
            for n, v in zip(NAMES, (True, False, False, True)):
                setattr(lib.backends.cudnn, n, v)
            old = lib.backends.cudnn.set_flags(_benchmark=True)
            after = now(lib)
            for n, v in zip(NAMES, before):
                setattr(lib.backends.cudnn, n, v)
        seen.append((old[:5], after))
    assert seen[0] == seen[1]
