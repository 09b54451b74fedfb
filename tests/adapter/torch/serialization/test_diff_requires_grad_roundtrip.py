"""torch.save / torch.load keep what a tensor is, as PyTorch: a tensor that requires
grad (leaf or not) loads as a plain leaf tensor that requires grad, a Parameter as a
Parameter with its requires_grad (False too).  Each file is also loaded by the other
library, so the records themselves match PyTorch's."""

from __future__ import annotations

import io

import pytest

from ..harness import mt, real

KINDS = ["plain", "leaf requires grad", "non-leaf", "Parameter", "Parameter(requires_grad=False)", "in a dict"]


def make(lib, kind):
    base = lib.tensor([1.0, -2.0, 3.0])
    if kind == "plain":
        return base
    if kind == "leaf requires grad":
        return base.requires_grad_(True)
    if kind == "non-leaf":
        return base.requires_grad_(True) * 2
    if kind == "Parameter":
        return lib.nn.Parameter(base)
    if kind == "Parameter(requires_grad=False)":
        return lib.nn.Parameter(base, requires_grad=False)
    return {"w": lib.nn.Parameter(base), "x": base.clone().requires_grad_(True)}


def describe(obj):
    if isinstance(obj, dict):
        return {k: describe(v) for k, v in obj.items()}
    return (type(obj).__name__, obj.requires_grad, obj.is_leaf, obj.grad_fn is None,
            obj.detach().numpy().tolist())


def roundtrip(save_lib, load_lib, kind, weights_only):
    buf = io.BytesIO()
    save_lib.save(make(save_lib, kind), buf)
    buf.seek(0)
    return describe(load_lib.load(buf, weights_only=weights_only))


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("kind", KINDS)
def test_load_gives_what_pytorch_gives(kind, weights_only):
    want = roundtrip(real, real, kind, weights_only)
    assert roundtrip(mt, mt, kind, weights_only) == want
    assert roundtrip(mt, real, kind, weights_only) == want  # msnb's file, read by PyTorch
    assert roundtrip(real, mt, kind, weights_only) == want  # PyTorch's file, read by msnb


def test_saved_tensors_hooks_file_round_trip_is_a_tensor():
    """The autograd saved-tensors-hooks tutorial packs saved tensors into files: unpacking gives
    the tensor back (not a Parameter), so printing it matches PyTorch."""
    out = []
    for lib in (real, mt):
        buf = io.BytesIO()
        lib.save(lib.ones(5, requires_grad=True), buf)
        buf.seek(0)
        out.append(repr(lib.load(buf, weights_only=True)))
    assert out[0] == out[1]
