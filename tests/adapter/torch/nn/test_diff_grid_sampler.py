"""Differential tests of grid sampling against real PyTorch: ``F.grid_sample``
on 4-D input in every mode (bicubic too: PyTorch's cubic-convolution taps,
each moved by the padding rule) and on 5-D input (trilinear, nearest), every
padding mode, both ``align_corners``; the low-level ``torch.grid_sampler_2d``
/ ``grid_sampler_3d`` / ``grid_sampler`` with PyTorch's integer codes; values
and gradients to input and grid; PyTorch's exception types on bad codes and
shapes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ..harness import case, registered, run_case

rng = np.random.default_rng(21)
X2 = rng.uniform(-2, 2, (2, 3, 5, 7)).astype(np.float32)
G2 = rng.uniform(-2, 2, (2, 4, 3, 2)).astype(np.float32)
X3 = rng.uniform(-1, 1, (2, 2, 3, 4, 5)).astype(np.float32)
G3 = rng.uniform(-3, 3, (2, 2, 3, 2, 3)).astype(np.float32)
TOL = dict(rtol=1e-4, atol=1e-5)
GS = registered("torch.nn.functional.grid_sample")
CASES = []

for _mode, _pad, _ac in itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"),
                                          (False, True)):
    CASES.append(case(f"grid_sample_4d[{_mode},{_pad},{_ac}]", GS,
                      lambda t, x, g, _m=_mode, _p=_pad, _a=_ac: t.nn.functional.grid_sample(
                          x, g, mode=_m, padding_mode=_p, align_corners=_a), X2, G2, **TOL))
    if _mode != "bicubic":
        CASES.append(case(f"grid_sample_5d[{_mode},{_pad},{_ac}]", GS,
                          lambda t, x, g, _m=_mode, _p=_pad, _a=_ac: t.nn.functional.grid_sample(
                              x, g, mode=_m, padding_mode=_p, align_corners=_a), X3, G3, **TOL))
for _code in range(3):
    CASES.append(case(f"grid_sampler_2d[mode={_code}]", registered("torch.grid_sampler_2d"),
                      lambda t, x, g, _c=_code: t.grid_sampler_2d(x, g, _c, 2 - _c, _c == 1), X2, G2, **TOL))
    CASES.append(case(f"grid_sampler[4d,mode={_code}]", registered("torch.grid_sampler"),
                      lambda t, x, g, _c=_code: t.grid_sampler(x, g, _c, _c, False), X2, G2, **TOL))
for _code in range(2):
    CASES.append(case(f"grid_sampler_3d[mode={_code}]", registered("torch.grid_sampler_3d"),
                      lambda t, x, g, _c=_code: t.grid_sampler_3d(x, g, _c, 1, True), X3, G3, **TOL))
_BAD = {
    "bicubic_5d": lambda t: t.nn.functional.grid_sample(t.zeros(1, 1, 2, 2, 2), t.zeros(1, 1, 1, 1, 3),
                                                        mode="bicubic", align_corners=False),
    "bad_mode_name": lambda t: t.nn.functional.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 1, 1, 2), mode="area"),
    "bad_padding_name": lambda t: t.nn.functional.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 1, 1, 2),
                                                              padding_mode="wrap"),
    "grid_dims_mismatch": lambda t: t.nn.functional.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 1, 1, 1, 3),
                                                                align_corners=False),
}
for _id, _fn in _BAD.items():
    CASES.append(case(f"bad_input[{_id}]", GS, _fn, kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_grid_sampler(c):
    run_case(c)
