"""torch.save / torch.load: msnb reads and writes PyTorch's zip checkpoint format.

Real PyTorch is the reference: checkpoints must move between the two in both
directions, and ``weights_only=True`` (the default) must refuse code in a file
before running any of it.
"""

from __future__ import annotations

import collections
import io
import pickle
import zipfile

import numpy as np
import pytest
import torch as real_torch

import msnb.adapter.torch as torch
from msnb.adapter.torch import serialization as S


def _np(t):
    if t.dtype is torch.bfloat16:
        return t.float().numpy(force=True)
    return t.numpy(force=True)


def _real_state():
    real_torch.manual_seed(0)
    sd = real_torch.nn.Linear(3, 2).state_dict()
    sd["idx"] = real_torch.arange(6, dtype=real_torch.int64).reshape(2, 3).t()  # non-contiguous
    sd["half"] = real_torch.tensor([1.5, -2.0], dtype=real_torch.float16)
    sd["mask"] = real_torch.tensor([True, False, True])
    sd["bf"] = real_torch.tensor([1.5, 2.0], dtype=real_torch.bfloat16)
    sd["scalar"] = real_torch.tensor(3.25)
    sd["nested"] = {"lr": 0.1, "steps": [1, 2], "name": "adam", "shape": real_torch.Size([2, 3])}
    return sd


def test_real_torch_file_loads_with_values_dtypes_and_key_order(tmp_path):
    """A state dict saved by real torch comes back as adapter tensors, keys in order."""
    sd = _real_state()
    path = tmp_path / "ref.pt"
    real_torch.save(sd, path)
    out = torch.load(path)
    assert isinstance(out, collections.OrderedDict)
    assert list(out) == list(sd)
    for k, v in sd.items():
        if isinstance(v, real_torch.Tensor):
            got = out[k]
            assert isinstance(got, torch.Tensor)
            assert str(got.dtype) == str(v.dtype)
            assert tuple(got.shape) == tuple(v.shape)
            np.testing.assert_array_equal(_np(got), v.float().numpy() if v.dtype == real_torch.bfloat16
                                          else v.numpy())
    assert out["nested"] == {"lr": 0.1, "steps": [1, 2], "name": "adam", "shape": (2, 3)}


def test_msnb_file_loads_in_real_torch_weights_only(tmp_path):
    """msnb's save output is accepted by real torch.load(weights_only=True)."""
    x = torch.arange(6).reshape(2, 3).float()
    sd = collections.OrderedDict(w=x.t(), i=torch.tensor([1, 2], dtype=torch.int64),
                                 h=torch.tensor([0.5], dtype=torch.float16), b=torch.tensor([True]),
                                 meta={"k": [1, "a", 2.5]})
    path = tmp_path / "m.pt"
    torch.save(sd, path)
    back = real_torch.load(path, weights_only=True)
    assert list(back) == list(sd)
    np.testing.assert_array_equal(back["w"].numpy(), x.t().numpy())
    assert back["w"].is_contiguous()
    assert back["i"].dtype == real_torch.int64 and back["h"].dtype == real_torch.float16
    assert back["b"].dtype == real_torch.bool
    assert back["meta"] == {"k": [1, "a", 2.5]}
    names = zipfile.ZipFile(path).namelist()
    assert names[0] == "m/data.pkl" and "m/version" in names and "m/byteorder" in names


def test_parameter_round_trips_through_real_torch(tmp_path):
    """A requires_grad leaf tensor is written as PyTorch writes it: a plain tensor that
    requires grad (not a Parameter); a Parameter stays a Parameter."""
    p = torch.ones(2)
    p.requires_grad_(True)
    path = tmp_path / "p.pt"
    torch.save({"p": p, "w": torch.nn.Parameter(torch.ones(2))}, path)
    back = real_torch.load(path, weights_only=True)
    assert type(back["p"]) is real_torch.Tensor and back["p"].requires_grad
    assert isinstance(back["w"], real_torch.nn.Parameter) and back["w"].requires_grad
    again = torch.load(path)
    assert type(again["p"]) is torch.Tensor and again["p"].requires_grad
    assert isinstance(again["w"], torch.nn.Parameter)


def test_msnb_round_trip_and_bytesio():
    """msnb -> msnb through an in-memory file object keeps values, dtypes, containers."""
    obj = {"t": torch.tensor([[1.0, 2.0]]), "l": [torch.tensor([1, 2], dtype=torch.int32), (3, "x")],
           "bf": torch.tensor([1.5]).to(torch.bfloat16), "d": torch.float16}
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    out = torch.load(buf, map_location="cpu", from_torch=True)
    np.testing.assert_array_equal(out["t"].numpy(), [[1.0, 2.0]])
    assert out["l"][0].dtype is torch.int32 and out["l"][1] == (3, "x")
    assert out["bf"].dtype is torch.bfloat16 and out["d"] is torch.float16


def _malicious_zip(path, marker):
    class Evil:
        def __reduce__(self):
            import os
            return (os.system, (f"touch {marker}",))

    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("archive/data.pkl", pickle.dumps({"w": Evil()}, protocol=2))
        zf.writestr("archive/version", "3\n")
        zf.writestr("archive/byteorder", "little")


def test_malicious_file_refused_without_side_effect(tmp_path):
    """weights_only=True (default) refuses os.system before calling it."""
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    _malicious_zip(path, marker)
    with pytest.raises(pickle.UnpicklingError, match=r"(?s)weights_only=False.*GLOBAL posix.system"):
        torch.load(path)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True, from_torch=True)
    assert not marker.exists()


def test_exec_global_refused(tmp_path):
    """builtins.exec is not on the allow-list either."""
    marker = tmp_path / "pwned2"
    data = (b"\x80\x02cbuiltins\nexec\nq\x00X" + len(f"open('{marker}','w')").to_bytes(4, "little")
            + f"open('{marker}','w')".encode() + b"\x85R.")
    path = tmp_path / "evil2.pt"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("archive/data.pkl", data)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL exec was not an allowed global"):
        torch.load(path)
    assert not marker.exists()


class Plain:
    def __init__(self, a):
        self.a = a


def test_weights_only_false_loads_plain_object():
    """weights_only=False unpickles arbitrary (trusted) objects, tensors inside included."""
    buf = io.BytesIO()
    torch.save(Plain(torch.tensor([1.0, 2.0])), buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(io.BytesIO(buf.getvalue()))
    out = torch.load(io.BytesIO(buf.getvalue()), weights_only=False)
    assert isinstance(out, Plain) and out.a.tolist() == [1.0, 2.0]


def test_non_zip_file_is_reported(tmp_path):
    """A plain pickle (not torch.save output) gets a clear error, not a pickle crash."""
    path = tmp_path / "old.pt"
    path.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(RuntimeError, match="plain pickle, not a checkpoint"):
        torch.load(path)
