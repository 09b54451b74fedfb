"""Checkpoints real PyTorch 2.13 writes load in msnb as PyTorch loads them.

The hardening of ``torch.load`` must not refuse real files: complex dtypes,
tensors sharing one storage (they stay views of one storage: a write to one
is seen in the other), expanded (stride-0) tensors, ``mmap=True``, the
``TORCH_FORCE_*_WEIGHTS_ONLY_LOAD`` variables and the safe-globals API.
"""

from __future__ import annotations

import collections
import pickle
import warnings

import numpy as np
import pytest
import torch as real_torch

import msnb.adapter.torch as torch


def _save(tmp_path, obj, name="ckpt.pt"):
    path = tmp_path / name
    real_torch.save(obj, path)
    return path


@pytest.mark.parametrize("mmap", [False, True])
def test_complex_and_plain_dtypes_load_with_values(tmp_path, mmap):
    """complex64/complex128 (refused before) and the other dtypes come back equal, with or without mmap."""
    real_torch.manual_seed(0)
    sd = {"c64": real_torch.randn(3, 2, dtype=real_torch.complex64),
          "c128": real_torch.randn(2, dtype=real_torch.complex128),
          "f": real_torch.randn(4, 3), "i": real_torch.arange(5), "b": real_torch.tensor([True, False])}
    out = torch.load(_save(tmp_path, sd), mmap=mmap)
    for k, v in sd.items():
        assert str(out[k].dtype) == str(v.dtype)
        np.testing.assert_array_equal(out[k].numpy(), v.numpy())


def test_tensors_sharing_a_storage_stay_views_of_one_storage(tmp_path):
    """A base and two views of it, saved together, still share writes after load (as in PyTorch)."""
    base = real_torch.arange(12, dtype=real_torch.float32).reshape(3, 4)
    obj = {"base": base, "row": base[1], "col": base[:, 2], "t": base.t()}
    out = torch.load(_save(tmp_path, obj))
    for k, v in obj.items():
        np.testing.assert_array_equal(out[k].numpy(), v.numpy())
    out["row"].mul_(10)  # writes through the view: base, col and t see it
    ref = base.clone()
    ref[1] *= 10
    np.testing.assert_array_equal(out["base"].numpy(), ref.numpy())
    np.testing.assert_array_equal(out["col"].numpy(), ref[:, 2].numpy())
    np.testing.assert_array_equal(out["t"].numpy(), ref.t().numpy())
    out["base"].add_(1)
    np.testing.assert_array_equal(out["row"].numpy(), (ref[1] + 1).numpy())


def test_slice_of_a_larger_storage_loads(tmp_path):
    """A saved slice carries its whole storage; the loaded tensor has the slice's values."""
    x = real_torch.arange(10.0)
    out = torch.load(_save(tmp_path, {"s": x[3:7], "step": x[::3]}))
    np.testing.assert_array_equal(out["s"].numpy(), [3, 4, 5, 6])
    np.testing.assert_array_equal(out["step"].numpy(), [0, 3, 6, 9])


def test_expanded_stride0_tensor_loads(tmp_path):
    """An expanded tensor (stride 0) saved by PyTorch loads with its values."""
    e = real_torch.tensor([1.0, 2.0, 3.0]).expand(1000, 3)
    out = torch.load(_save(tmp_path, {"e": e}))
    assert tuple(out["e"].shape) == (1000, 3)
    np.testing.assert_array_equal(out["e"].numpy(), e.numpy())


def test_mmap_needs_a_path(tmp_path):
    """mmap=True with a file object raises PyTorch's ValueError."""
    path = _save(tmp_path, {"a": real_torch.ones(2)})
    with open(path, "rb") as fh, pytest.raises(ValueError, match="must be a file path"):
        torch.load(fh, mmap=True)


def _numpy_file(tmp_path):
    return _save(tmp_path, {"arr": np.arange(6, dtype=np.float32).reshape(2, 3)}, "np.pt")


def _numpy_globals():
    return [np.core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.float32))]


def test_numpy_array_needs_safe_globals(tmp_path):
    """A numpy array saved with torch.save is refused by default and loads once its globals are marked safe."""
    path = _numpy_file(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match="add_safe_globals"):
        torch.load(path)
    assert torch.serialization.get_safe_globals() == []
    with torch.serialization.safe_globals(_numpy_globals()):
        assert set(torch.serialization.get_safe_globals()) == set(_numpy_globals())
        out = torch.load(path)
    assert torch.serialization.get_safe_globals() == []
    np.testing.assert_array_equal(out["arr"], np.arange(6, dtype=np.float32).reshape(2, 3))
    try:
        torch.serialization.add_safe_globals(_numpy_globals())
        assert torch.load(path)["arr"].shape == (2, 3)
        assert torch.serialization.get_unsafe_globals_in_checkpoint(path) == []
    finally:
        torch.serialization.clear_safe_globals()
    assert torch.serialization.get_safe_globals() == []
    assert "numpy.ndarray" in torch.serialization.get_unsafe_globals_in_checkpoint(path)


def test_force_no_weights_only_env(tmp_path, monkeypatch):
    """TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 loads a numpy file with a warning, unless weights_only is passed."""
    path = _numpy_file(tmp_path)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.warns(UserWarning, match="forcing weights_only=False"):
        out = torch.load(path)
    assert out["arr"].shape == (2, 3)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of"):
        torch.load(path)
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=False)  # forced to weights_only even when passed


def test_state_dict_metadata_and_parameter(tmp_path):
    """A module's state dict keeps its ``_metadata`` (set with BUILD on the OrderedDict) and Parameters load."""
    sd = real_torch.nn.Linear(2, 2).state_dict()
    path = _save(tmp_path, {"sd": sd, "p": real_torch.nn.Parameter(real_torch.ones(2))})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = torch.load(path)
    assert isinstance(out["sd"], collections.OrderedDict)
    assert out["sd"]._metadata == sd._metadata
    assert isinstance(out["p"], torch.nn.Parameter) and out["p"].requires_grad


def test_big_endian_file_loads(tmp_path):
    """A checkpoint whose ``byteorder`` record says big-endian is byte-swapped on load."""
    import zipfile

    src = _save(tmp_path, {"f": real_torch.tensor([1.5, -2.0]), "i": real_torch.tensor([1, 256])}, "le.pt")
    dst = tmp_path / "be.pt"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith("/byteorder"):
                data = b"big"
            elif "/data/" in info.filename:
                item = 4 if info.file_size == 8 else 8  # the float32 record is 8 bytes, the int64 one 16
                data = np.frombuffer(data, dtype=f"<{'f' if item == 4 else 'i'}{item}").astype(
                    f">{'f' if item == 4 else 'i'}{item}").tobytes()
            zout.writestr(info.filename, data)
    out = torch.load(dst)
    np.testing.assert_array_equal(out["f"].numpy(), [1.5, -2.0])
    np.testing.assert_array_equal(out["i"].numpy(), [1, 256])
