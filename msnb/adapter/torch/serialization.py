"""msnb's ``torch.save`` / ``torch.load``: PyTorch's zip checkpoint format.

Files written here load in real PyTorch (``torch.load(..., weights_only=True)``)
and files written by real PyTorch load here, without importing PyTorch:

* the pickler writes ``GLOBAL`` opcodes for ``torch._utils._rebuild_tensor_v2``,
  ``torch.FloatStorage`` ... by name (stand-in objects, never real torch);
* storages are persistent ids ``('storage', <torch.XStorage>, key, 'cpu', numel)``
  whose bytes live in ``<archive>/data/<key>`` records, 64-byte aligned like
  PyTorch's writer;
* ``load`` defaults to ``weights_only=True``: a restricted unpickler that only
  resolves an allow-list of globals (tensor/parameter rebuilders, storages,
  ``OrderedDict``, ``torch.Size``, ``torch.device``, dtypes, plain builtins).
  Anything else raises ``pickle.UnpicklingError`` before it can run.

The legacy (pre-1.6, non-zip) format is not supported; ``load`` says so.
"""

from __future__ import annotations

import builtins
import collections
import io
import os
import pickle
import struct
import zipfile

import numpy as np

from . import _dtype as D

__all__ = ["save", "load"]

# torch storage class name -> (torch dtype, numpy dtype of the raw bytes)
_STORAGES = {
    "FloatStorage": (D.float32, np.float32), "DoubleStorage": (D.float64, np.float64),
    "HalfStorage": (D.float16, np.float16), "BFloat16Storage": (D.bfloat16, np.uint16),
    "LongStorage": (D.int64, np.int64), "IntStorage": (D.int32, np.int32),
    "ShortStorage": (D.int16, np.int16), "CharStorage": (D.int8, np.int8),
    "ByteStorage": (D.uint8, np.uint8), "BoolStorage": (D.bool, np.bool_),
    "ComplexFloatStorage": (D.complex64, np.complex64), "ComplexDoubleStorage": (D.complex128, np.complex128),
}
_STORAGE_OF = {dt: name for name, (dt, _) in _STORAGES.items()}
_DTYPE_NAMES = {"float16", "half", "bfloat16", "float32", "float", "float64", "double", "int8", "int16",
                "short", "int32", "int", "int64", "long", "uint8", "bool", "complex64", "complex128",
                "cfloat", "cdouble"}


# --------------------------------------------------------------------------- save
class _Global:
    """Stand-in pickled as ``GLOBAL module name`` (no import of ``module``)."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __repr__(self):
        return f"<{self.module}.{self.name}>"

    def __call__(self, *args, **kwargs):  # pickle wants reduce callables to be callable
        raise TypeError(f"{self!r} is a pickling stand-in, not callable")


_G_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_G_REBUILD_PARAM = _Global("torch._utils", "_rebuild_parameter")
_G_STORAGE = {name: _Global("torch", name) for name in _STORAGES}
_G_DTYPE = {name: _Global("torch", name) for name in _DTYPE_NAMES}
_G_SIZE = _Global("torch", "Size")
_G_DEVICE = _Global("torch", "device")


class _StorageRef:
    def __init__(self, key: str, storage_name: str, numel: int):
        self.key, self.storage_name, self.numel = key, storage_name, numel


class _PlainTensor:
    """A tensor's data as ``_rebuild_tensor_v2`` arguments (used for the param's inner tensor)."""

    def __init__(self, ref, shape):
        self.ref, self.shape = ref, shape


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(strides))


def _tensor_bytes(t):
    """(storage class name, raw little-endian bytes, numel) of a contiguous copy of ``t``."""
    dt = D.to_torch_dtype(t.dtype)
    arr = np.asarray(t.asnumpy() if dt is not D.bfloat16 else t.numpy(force=True))
    if dt is D.bfloat16:
        bits = np.ascontiguousarray(arr, dtype=np.float32).view(np.uint32)
        arr = (bits >> 16).astype(np.uint16)  # values are exactly bf16, truncation is exact
    arr = np.ascontiguousarray(arr)
    if arr.dtype.byteorder == ">":
        arr = arr.byteswap().view(arr.dtype.newbyteorder("<"))
    return _STORAGE_OF[dt], arr.tobytes(), int(arr.size)


class _TorchPickler(pickle._Pickler):  # pure-Python pickler: lets us write GLOBAL opcodes by name
    def __init__(self, file, records):
        super().__init__(file, protocol=2)
        self._records = records  # key -> bytes
        self._refs = {}  # id(tensor) -> (tensor, _StorageRef)

    def _ref(self, t):
        got = self._refs.get(id(t))
        if got is not None:
            return got[1]
        name, data, numel = _tensor_bytes(t)
        key = str(len(self._records))
        self._records[key] = data
        ref = _StorageRef(key, name, numel)
        self._refs[id(t)] = (t, ref)
        return ref

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _G_STORAGE[obj.storage_name], obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        from ._tensor import Tensor
        import mindspore as ms

        if isinstance(obj, _PlainTensor):
            return (_G_REBUILD_V2, (obj.ref, 0, tuple(obj.shape), _contiguous_strides(obj.shape), False,
                                    collections.OrderedDict()))
        if isinstance(obj, ms.Tensor):
            shape = tuple(int(n) for n in obj.shape)
            ref = self._ref(obj)
            grad = bool(getattr(obj, "requires_grad", False)) and (
                not isinstance(obj, Tensor) or obj.is_leaf)
            if isinstance(obj, ms.Parameter) and not isinstance(obj, Tensor):
                grad = bool(obj.requires_grad)
            if grad:
                return (_G_REBUILD_PARAM, (_PlainTensor(ref, shape), True, collections.OrderedDict()))
            return (_G_REBUILD_V2, (ref, 0, shape, _contiguous_strides(shape), False, collections.OrderedDict()))
        from ._tensor import Size
        from ._device import device

        if isinstance(obj, Size):
            return (_G_SIZE, (tuple(int(n) for n in obj),))
        if isinstance(obj, device):
            return (_G_DEVICE, (str(obj),))
        return NotImplemented

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, D.dtype):
            obj = _G_DTYPE[obj._name]
        if isinstance(obj, _Global):
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(self.get(x[0]))
                return
            self.save_global(obj)
            return
        super().save(obj, save_persistent_id)


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes, align: int = 64):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    offset = zf.fp.tell() if hasattr(zf.fp, "tell") else 0
    header = 30 + len(name.encode("utf-8"))
    pad = (-(offset + header + 4)) % align
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    zf.writestr(info, data)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """msnb implementation of ``torch.save`` (PyTorch's zip format, readable by real PyTorch).

    ``f`` is a path (str / PathLike) or a writable binary file object."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("msnb: torch.save only writes the zip format "
                                  "(_use_new_zipfile_serialization=False is not supported)")
    if isinstance(f, (str, os.PathLike)):
        prefix = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        with open(f, "wb") as fh:
            _save(obj, fh, prefix)
    else:
        _save(obj, f, "archive")


def _save(obj, fh, prefix):
    records: dict = {}
    buf = io.BytesIO()
    _TorchPickler(buf, records).dump(obj)
    # Write to memory first so record offsets (for alignment) are exact even for
    # non-seekable targets.
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        _write_record(zf, f"{prefix}/data.pkl", buf.getvalue())
        _write_record(zf, f"{prefix}/.format_version", b"1")
        _write_record(zf, f"{prefix}/.storage_alignment", b"64")
        _write_record(zf, f"{prefix}/byteorder", b"little")
        for key, data in records.items():
            _write_record(zf, f"{prefix}/data/{key}", data)
        _write_record(zf, f"{prefix}/version", b"3\n")
        _write_record(zf, f"{prefix}/.data/serialization_id",
                      str(int.from_bytes(os.urandom(16), "little")).zfill(40)[:40].encode())
    fh.write(out.getvalue())


# --------------------------------------------------------------------------- load
class _StorageType:
    def __init__(self, name):
        self.name = name
        self.dtype, self.np_dtype = _STORAGES[name]


class _LoadedStorage:
    def __init__(self, arr, dtype):
        self.arr, self.dtype = arr, dtype


def _to_adapter(arr, dtype):
    from ._ops.creation import tensor as _tensor

    if dtype is D.bfloat16:
        f32 = (arr.astype(np.uint32) << 16).view(np.float32)
        return _tensor(np.array(f32, order="C", copy=True)).to(D.bfloat16)
    return _tensor(np.array(arr, order="C", copy=True))


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    arr = storage.arr
    size = tuple(int(n) for n in size)
    item = arr.dtype.itemsize
    if len(size) == 0:
        view = arr[storage_offset:storage_offset + 1].reshape(())
    elif any(n == 0 for n in size):
        view = np.zeros(size, dtype=arr.dtype)
    else:
        view = np.lib.stride_tricks.as_strided(arr[storage_offset:], shape=size,
                                               strides=tuple(int(s) * item for s in stride))
    t = _to_adapter(np.array(view, copy=True), storage.dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    if requires_grad and not data.requires_grad:
        data.requires_grad_(True)
    try:
        from .nn.parameter import Parameter  # msnb's nn may provide it
    except Exception:  # noqa: BLE001 - nn not available: a requires_grad tensor is the closest thing
        return data
    try:
        return Parameter(data, requires_grad=requires_grad)
    except Exception:  # noqa: BLE001
        return data


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _rebuild_parameter(data, requires_grad, backward_hooks)


def _rebuild_from_type_v2(func, new_type, args, state):
    return func(*args)


def _torch_global(module: str, name: str):
    """Adapter object for a ``torch.*`` global that is safe to load, or None."""
    from ._tensor import Size
    from ._device import device

    if module == "torch._utils":
        return {"_rebuild_tensor_v2": _rebuild_tensor_v2, "_rebuild_parameter": _rebuild_parameter,
                "_rebuild_parameter_with_state": _rebuild_parameter_with_state}.get(name)
    if module == "torch._tensor" and name == "_rebuild_from_type_v2":
        return _rebuild_from_type_v2
    if module == "torch" and name in _STORAGES:
        return _StorageType(name)
    if module == "torch" and name == "Size":
        return Size
    if module == "torch" and name == "device":
        return device
    if module == "torch" and name in _DTYPE_NAMES:
        return getattr(D, name)
    if (module, name) in {("torch", "Tensor"), ("torch._tensor", "Tensor"), ("torch.nn.parameter", "Parameter")}:
        from ._tensor import Tensor
        return Tensor
    return None


_SAFE_BUILTINS = {"dict", "list", "tuple", "set", "frozenset", "int", "float", "complex", "str", "bytes",
                  "bytearray", "bool", "slice", "range"}
_SAFE = {("collections", "OrderedDict"): collections.OrderedDict}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, zf, prefix, weights_only):
        super().__init__(file, encoding="utf-8")
        self._zf, self._prefix, self._weights_only = zf, prefix, weights_only
        self._loaded = {}

    def find_class(self, module, name):
        if module.startswith("torch"):
            obj = _torch_global(module, name)
            if obj is not None:
                return obj
        if (module, name) in _SAFE:
            return _SAFE[(module, name)]
        if module in ("builtins", "__builtin__") and name in _SAFE_BUILTINS:
            return getattr(builtins, name)
        if module == "_codecs" and name == "encode":  # how protocol-2 pickles spell bytes
            import _codecs
            return _codecs.encode
        if self._weights_only:
            raise pickle.UnpicklingError(
                f"msnb torch.load(weights_only=True) refused the global '{module}.{name}' found in the "
                "file: it is not on the allow-list of tensor/state-dict types. Loading it with "
                "weights_only=False would import and run code from the file; only do that if you trust "
                "its source.")
        if module.startswith("torch"):
            import importlib
            rest = module[len("torch"):]
            try:
                mod = importlib.import_module("msnb.adapter.torch" + rest)
                return getattr(mod, name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(
                    f"msnb: the file needs '{module}.{name}', which msnb's torch does not provide") from None
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"msnb torch.load: unsupported persistent id {pid!r}")
        _, stype, key, _location, numel = pid[:5]
        if not isinstance(stype, _StorageType):
            raise pickle.UnpicklingError(f"msnb torch.load: unsupported storage type {stype!r}")
        key = str(key)
        got = self._loaded.get(key)
        if got is None:
            data = self._zf.read(f"{self._prefix}/data/{key}")
            arr = np.frombuffer(data, dtype=np.dtype(stype.np_dtype).newbyteorder("<")).astype(
                stype.np_dtype, copy=False)
            got = self._loaded[key] = _LoadedStorage(arr, stype.dtype)
        return got


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, from_torch=False,
         **pickle_load_args):
    """msnb implementation of ``torch.load`` for PyTorch's zip checkpoint format.

    ``weights_only=True`` (the default, as in PyTorch >= 2.6) only accepts
    tensors, state dicts and plain containers.  ``map_location`` is accepted
    and ignored: tensors land on MindSpore's active device.  ``from_torch``
    (MSAdapter's flag) is accepted; files from real PyTorch always load."""
    if weights_only is None:
        weights_only = True
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _load(fh.read(), weights_only)
    data = f.read()
    return _load(data, weights_only)


def _load(data: bytes, weights_only: bool):
    bio = io.BytesIO(data)
    if not zipfile.is_zipfile(bio):
        raise RuntimeError("msnb torch.load: the file is not in PyTorch's zip format (legacy pre-1.6 "
                           "torch.save files and TorchScript archives are not supported)")
    bio.seek(0)
    with zipfile.ZipFile(bio) as zf:
        names = zf.namelist()
        pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            raise RuntimeError("msnb torch.load: no data.pkl record in the archive")
        prefix = pkl[0].split("/", 1)[0]
        up = _Unpickler(io.BytesIO(zf.read(pkl[0])), zf, prefix, weights_only)
        return up.load()
