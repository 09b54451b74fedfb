"""``torch.Generator`` for the CPU: PyTorch's mt19937 engine and state layout.

PyTorch's CPU generator is the standard 32-bit Mersenne Twister seeded with
the classic ``init_genrand`` recurrence on the low 32 bits of the seed, plus a
cached second Box-Muller sample for the double and float normal samplers.
numpy's ``MT19937`` bit generator runs the same recurrence and tempering, so
its ``random_raw`` gives PyTorch's raw 32-bit words, many at a time; this
module only maps seeds and states between the two.

The state tensor has PyTorch's byte layout (5056 bytes: seed, ``left``,
``seeded``, ``next``, 624 words widened to 64 bits, the legacy normal fields,
the float normal cache), so a state taken from real PyTorch can be set here
and the other way round.  PyTorch's 5048-byte legacy layout is accepted too.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["Generator", "default_generator", "DEFAULT_SEED", "STATE_BYTES"]

#: PyTorch's seed for a fresh ``torch.Generator()`` and for the default generator
DEFAULT_SEED = 67280421310721
_N = 624

_LEGACY = np.dtype([("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
                    ("state", "<u8", (_N,)), ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"),
                    ("normal_valid", "<i4"), ("_pad", "<i4")])
_CURRENT = np.dtype([("legacy", _LEGACY), ("float_normal", "<f4"), ("float_valid", "u1"), ("_pad", "u1", (3,))])
STATE_BYTES = _CURRENT.itemsize  # 5056
_LEGACY_BYTES = _LEGACY.itemsize  # 5048


def _seed_words(seed32: int) -> np.ndarray:
    """mt19937's initial 624 words for a 32-bit seed (``init_genrand``)."""
    words = np.empty(_N, dtype=np.uint32)
    w = seed32
    words[0] = w
    for i in range(1, _N):
        w = (1812433253 * (w ^ (w >> 30)) + i) & 0xFFFFFFFF
        words[i] = w
    return words


def _as_uint64_seed(seed) -> int:
    """PyTorch's seed conversion: an int in [-2**63, 2**64), negatives wrapped."""
    if hasattr(seed, "item"):
        seed = seed.item()
    if isinstance(seed, float):
        if not seed.is_integer():
            raise TypeError(f"manual_seed expected a long, but got float")
        seed = int(seed)
    seed = int(seed)
    if seed < -2 ** 63 or seed >= 2 ** 64:
        raise RuntimeError("Overflow when unpacking long")
    return seed & 0xFFFFFFFFFFFFFFFF


class Generator:
    """msnb implementation of ``torch.Generator`` (CPU): PyTorch's mt19937 streams."""

    def __init__(self, device="cpu"):
        from .._device import device as _device
        self.device = _device(device) if not hasattr(device, "type") else device
        self._bits = np.random.MT19937(0)
        self.manual_seed(DEFAULT_SEED)

    # seeding -------------------------------------------------------------------------
    def manual_seed(self, seed):
        """Seed as PyTorch does: the state from the low 32 bits, ``initial_seed`` keeps all 64."""
        s = _as_uint64_seed(seed)
        self._seed = s
        self._set_engine(_seed_words(s & 0xFFFFFFFF), 624)
        self._fresh = True
        self.next_double_normal = None
        self.next_float_normal = None
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the 64-bit seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    # raw words -------------------------------------------------------------------------
    def _set_engine(self, words, pos):
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": words, "pos": int(pos)}}

    def random32(self, n: int) -> np.ndarray:
        """``n`` consecutive 32-bit outputs (PyTorch's ``random()``), as uint64."""
        self._fresh = False
        return self._bits.random_raw(int(n)).astype(np.uint64, copy=False)

    def random64(self, n: int) -> np.ndarray:
        """``n`` 64-bit outputs (PyTorch's ``random64()``: first word high, second low)."""
        w = self.random32(2 * int(n))
        return (w[0::2] << np.uint64(32)) | w[1::2]

    # state -----------------------------------------------------------------------------
    def _state_bytes(self) -> np.ndarray:
        st = self._bits.state["state"]
        pos = int(st["pos"])
        rec = np.zeros((), dtype=_CURRENT)
        leg = rec["legacy"]
        leg["seed"] = self._seed
        leg["left"] = 1 if self._fresh else _N + 1 - pos
        leg["seeded"] = 1
        leg["next"] = 0 if self._fresh else pos
        leg["state"] = np.asarray(st["key"], dtype=np.uint64)
        if self.next_double_normal is not None:
            leg["normal_valid"] = 1
            leg["normal_y"] = self.next_double_normal
        if self.next_float_normal is not None:
            rec["float_valid"] = 1
            rec["float_normal"] = self.next_float_normal
        rec["legacy"] = leg
        return np.frombuffer(rec.tobytes(), dtype=np.uint8).copy()

    def get_state(self):
        """The state as PyTorch's 5056-byte ``ByteTensor``."""
        from .. import _dtype as D
        from .creation import _finish
        return _finish(self._state_bytes(), D.uint8)

    def set_state(self, new_state):
        """Set a state from :meth:`get_state` (or from real PyTorch's ``get_state``)."""
        if not hasattr(new_state, "dtype") or "uint8" not in str(new_state.dtype):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        raw = np.ascontiguousarray(np.asarray(new_state.numpy() if hasattr(new_state, "numpy") else new_state,
                                              dtype=np.uint8)).reshape(-1)
        if raw.size == STATE_BYTES:
            rec = np.frombuffer(raw.tobytes(), dtype=_CURRENT)[0]
            leg = rec["legacy"]
            fnorm = float(rec["float_normal"]) if rec["float_valid"] else None
            dnorm = float(leg["normal_y"]) if leg["normal_valid"] else None
        elif raw.size == _LEGACY_BYTES:
            leg = np.frombuffer(raw.tobytes(), dtype=_LEGACY)[0]
            fnorm = self.next_float_normal
            dnorm = None
            if leg["normal_valid"]:  # the legacy layout kept the Box-Muller inputs, not the sample
                dnorm = float(leg["normal_rho"]) * float(np.sin(2.0 * np.pi * float(leg["normal_x"])))
        else:
            raise RuntimeError(f"Expected either a CPUGeneratorImplStateLegacy of size {_LEGACY_BYTES} or a "
                               f"CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG state "
                               f"size to be {raw.size}")
        left, nxt = int(leg["left"]), int(leg["next"])
        if not (leg["seeded"] and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        self._set_engine(np.asarray(leg["state"], dtype=np.uint64).astype(np.uint32), _N + 1 - left)
        self._fresh = left == 1 and nxt == 0
        self._seed = int(leg["seed"])
        self.next_double_normal, self.next_float_normal = dnorm, fnorm
        return self

    def clone_state(self):
        """A copy of the whole state (for ``fork_rng``)."""
        return self._state_bytes()

    def restore(self, raw: np.ndarray):
        from .creation import _finish
        from .. import _dtype as D
        self.set_state(_finish(raw, D.uint8))

    def __repr__(self):
        return "<torch._C.Generator object>"

    def __reduce__(self):
        return (_rebuild, (str(self.device), self._state_bytes()))


def _rebuild(device, raw):
    g = Generator(device)
    g.restore(raw)
    return g


default_generator = Generator()
