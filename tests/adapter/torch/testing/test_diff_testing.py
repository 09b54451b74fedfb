"""Differential tests of ``torch.testing``: ``assert_close`` must pass and fail
where PyTorch's does, with its exception type and message; ``make_tensor`` must
draw PyTorch's values after the same seed."""

from __future__ import annotations

import numpy as np
import pytest

from ..harness import case, run_case

CASES = []
AC = ("torch.testing.assert_close",)


def outcome(fn):
    """``("ok",)`` or ``(exception type name, message)``: compared verbatim with PyTorch's."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type(e).__name__, str(e).replace("msnb.adapter.torch._tensor.Tensor", "torch.Tensor")
    return ("ok",)


def close(id, fn):
    CASES.append(case(f"assert_close[{id}]", AC, lambda t: outcome(lambda: fn(t, t.testing.assert_close)),
                      kind="behaviour"))


NAN = float("nan")
close("float32 mismatch", lambda t, ac: ac(t.tensor([1., 2., 3.]), t.tensor([1., 2.1, 3.])))
close("float32 within tolerance", lambda t, ac: ac(t.tensor([1., 2., 3.]), t.tensor([1., 2., 3.0000001])))
close("dtype", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2.], dtype=t.float64)))
close("check_dtype=False", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2.], dtype=t.float64), check_dtype=False))
close("nan", lambda t, ac: ac(t.tensor([1., NAN]), t.tensor([1., NAN])))
close("equal_nan", lambda t, ac: ac(t.tensor([1., NAN]), t.tensor([1., NAN]), equal_nan=True))
close("int64", lambda t, ac: ac(t.tensor([1, 2]), t.tensor([1, 3])))
close("int32 vs int64", lambda t, ac: ac(t.tensor([1, 2], dtype=t.int32), t.tensor([1, 2])))
close("bool", lambda t, ac: ac(t.tensor([True]), t.tensor([False])))
close("shape", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2., 3.])))
close("0-d vs 1-d", lambda t, ac: ac(t.tensor(1.), t.tensor([1.])))
close("0-d mismatch", lambda t, ac: ac(t.tensor(1.), t.tensor(1.5)))
close("2-d index", lambda t, ac: ac(t.tensor([[1., 2.], [3, 4]]), t.tensor([[1., 2.], [3, 5]])))
close("float16", lambda t, ac: ac(t.tensor([1., 2.], dtype=t.float16), t.tensor([1., 2.01], dtype=t.float16)))
close("float16 within", lambda t, ac: ac(t.tensor([1., 2.], dtype=t.float16), t.tensor([1., 2.001], dtype=t.float16)))
close("float64 default", lambda t, ac: ac(t.tensor([1.], dtype=t.float64), t.tensor([1.00000001], dtype=t.float64)))
close("inf", lambda t, ac: ac(t.tensor(float("inf")), t.tensor(float("inf"))))
close("requires_grad ignored", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2.]).requires_grad_()))
close("rtol alone", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2.5]), rtol=0.1))
close("rtol and atol", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2.5]), rtol=0.3, atol=0))
close("msg str", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2.5]), msg="custom"))
close("msg callable", lambda t, ac: ac(t.tensor([1., 2.]), t.tensor([1., 2.5]), msg=lambda m: m.upper()))
close("numpy", lambda t, ac: ac(np.array([1., 2.]), np.array([1., 2.5])))
close("python floats", lambda t, ac: ac(1.0, 1.1))
close("python floats close", lambda t, ac: ac(1.0, 1.0 + 1e-9))
close("python ints", lambda t, ac: ac(1, 2))
close("int vs float", lambda t, ac: ac(1, 1.0))
close("tensor vs float", lambda t, ac: ac(t.tensor(1.), 1.0))
close("strings", lambda t, ac: ac("a", "a"))
close("sequence item", lambda t, ac: ac([t.tensor(1.)], [t.tensor(2.)]))
close("sequence length", lambda t, ac: ac([1, 2], [1, 2, 3]))
close("mapping item", lambda t, ac: ac({"a": t.tensor(1.)}, {"a": t.tensor(2.)}))
close("mapping keys", lambda t, ac: ac({"a": 1}, {"b": 1}))
close("nested equal", lambda t, ac: ac({"a": [t.ones(2), (3, 4.0)]}, {"a": [t.ones(2), (3, 4.0)]}))


def drawn(t, seed):
    t.manual_seed(seed)
    mk = t.testing.make_tensor
    return (mk((2, 3), dtype=t.float32, device="cpu"), mk((3,), dtype=t.int64, device="cpu", low=0, high=5),
            mk(3, dtype=t.bool, device="cpu"), mk((2,), dtype=t.float64, device="cpu", requires_grad=True, low=-1,
                                                  high=1),
            mk((4,), dtype=t.uint8, device="cpu"), mk((4,), dtype=t.float32, device="cpu", exclude_zero=True),
            mk((0, 2), dtype=t.float32, device="cpu").shape, mk((2, 2), dtype=t.float16, device="cpu"))


MK = ("torch.testing.make_tensor",)
for seed in (0, 3):
    CASES.append(case(f"make_tensor[seed {seed}]", MK, lambda t, s=seed: drawn(t, s), kind="behaviour"))
for bad_id, bad in (("low >= high", lambda t: t.testing.make_tensor((2,), dtype=t.float32, device="cpu", low=2,
                                                                    high=1)),
                    ("no device", lambda t: t.testing.make_tensor((2,), dtype=t.float32)),
                    ("int requires_grad", lambda t: t.testing.make_tensor((2,), dtype=t.int64, device="cpu",
                                                                          requires_grad=True))):
    CASES.append(case(f"make_tensor raises[{bad_id}]", MK, bad, kind="behaviour"))
CASES.append(case("assert_allclose", ("torch.testing.assert_allclose",), lambda t: outcome(
    lambda: t.testing.assert_allclose([1.0, 2.0], t.tensor([1.0, 2.5]))), kind="behaviour"))


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_testing_matches_pytorch(c):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # assert_allclose is deprecated in PyTorch
        run_case(c)


ZERO = [case(f"assert_close[zero tolerance {dt}]", AC, lambda t, dt=dt: outcome(lambda: t.testing.assert_close(
    t.tensor([1., 1.], dtype=getattr(t, dt)), t.tensor([1., 5.], dtype=getattr(t, dt)), rtol=0, atol=0)),
    kind="behaviour") for dt in ("float32", "float64")]
CASES += ZERO
ALLCLOSE = [case(f"assert_allclose[{dt}]", ("torch.testing.assert_allclose",), lambda t, dt=dt: outcome(
    lambda: t.testing.assert_allclose(t.tensor([1., 1.], dtype=getattr(t, dt)), t.tensor([1., 5.],
                                                                                        dtype=getattr(t, dt)))),
    kind="behaviour") for dt in ("float16", "float32", "float64")]
CASES += ALLCLOSE


@pytest.mark.parametrize("c", ZERO + ALLCLOSE, ids=repr)
def test_tolerance_wording_matches_pytorch(c):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        run_case(c)
