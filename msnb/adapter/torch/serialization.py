"""msnb's ``torch.save`` / ``torch.load``: PyTorch's zip checkpoint format.

Files written here load in real PyTorch (``torch.load(..., weights_only=True)``)
and files written by real PyTorch load here, without importing PyTorch:

* the pickler writes ``GLOBAL`` opcodes for ``torch._utils._rebuild_tensor_v2``,
  ``torch.FloatStorage`` ... by name (stand-in objects, never real torch);
* storages are persistent ids ``('storage', <torch.XStorage>, key, 'cpu', numel)``
  whose bytes live in ``<archive>/data/<key>`` records, 64-byte aligned like
  PyTorch's writer;
* ``load`` defaults to ``weights_only=True``: msnb's own restricted
  unpickler (``_weights_only``) resolves only an allow-list of globals and
  refuses state-setting on anything but containers; the archive reader
  (``_checkpoint``) validates every storage record, size, stride and offset
  before a tensor is made.  What is promised is in ``docs/safety.md``.

The legacy (pre-1.6, non-zip) format is not supported; ``load`` says so.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle
import struct
import warnings
import zipfile

import numpy as np

from . import _checkpoint as CK
from . import _dtype as D
from . import _weights_only as WO

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint"]

_STORAGES = CK.STORAGES
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


def _stock_dispatch() -> dict:
    """The savers ``pickle._Pickler`` defines for the built-in types (another library, e.g. dill,
    may have replaced or added entries in its shared ``dispatch`` table)."""
    import types
    P = pickle._Pickler
    table = {type(None): "save_none", bool: "save_bool", int: "save_long", float: "save_float",
             bytes: "save_bytes", bytearray: "save_bytearray", str: "save_str", tuple: "save_tuple",
             list: "save_list", dict: "save_dict", set: "save_set", frozenset: "save_frozenset",
             types.FunctionType: "save_global", type: "save_type"}
    if hasattr(pickle, "PickleBuffer"):
        table[pickle.PickleBuffer] = "save_picklebuffer"
    return {t: getattr(P, name) for t, name in table.items() if hasattr(P, name)}


class _TorchPickler(pickle._Pickler):  # pure-Python pickler: lets us write GLOBAL opcodes by name
    def __init__(self, file, records):
        super().__init__(file, protocol=2)
        # the stock pickler's own savers only: dill (imported by mindspore.dataset) adds its savers to
        # pickle._Pickler.dispatch, which would write dill globals that PyTorch's torch.load refuses
        self.dispatch = _stock_dispatch()
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
        import mindspore as ms

        if isinstance(obj, _PlainTensor):
            return (_G_REBUILD_V2, (obj.ref, 0, tuple(obj.shape), _contiguous_strides(obj.shape), False,
                                    collections.OrderedDict()))
        if isinstance(obj, ms.Tensor):
            shape = tuple(int(n) for n in obj.shape)
            ref = self._ref(obj)
            # as PyTorch writes them: a Parameter (msnb's subclasses MindSpore's) through
            # _rebuild_parameter whatever its requires_grad; any other tensor as a plain tensor
            # carrying its requires_grad (a non-leaf loads as a leaf that requires grad)
            grad = bool(getattr(obj, "requires_grad", False))
            if isinstance(obj, ms.Parameter):
                return (_G_REBUILD_PARAM, (_PlainTensor(ref, shape), grad, collections.OrderedDict()))
            return (_G_REBUILD_V2, (ref, 0, shape, _contiguous_strides(shape), grad, collections.OrderedDict()))
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
        parent = os.path.dirname(os.path.abspath(os.fspath(f)))
        if not os.path.isdir(parent):  # PyTorch's zip writer refuses before opening
            raise RuntimeError(f"Parent directory {os.path.dirname(os.fspath(f)) or parent} does not exist.")
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
_UNSAFE_HINT = ("Re-running torch.load with weights_only=False would likely succeed, but it can run arbitrary "
                "code from the file: do it only if you got the file from a trusted source.")
_TRUE = ("1", "y", "yes", "true")
_DTYPE_OF_NAME = {name: getattr(D, name) for name in _DTYPE_NAMES}


def _set_state(t, state):
    """Attributes a tensor carried (PyTorch's ``_set_obj_state``), never msnb's own."""
    if not state:
        return t
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    for part in (state, slots):
        if not part:
            continue
        if not isinstance(part, dict):
            raise pickle.UnpicklingError("msnb torch.load: a tensor's saved state is not a dict of attributes")
        for k, v in part.items():
            if type(k) is not str or not k.isidentifier() or k.startswith("_") or hasattr(type(t), k):
                raise pickle.UnpicklingError(f"msnb torch.load: refusing to set attribute {k!r:.60} on a loaded "
                                             "tensor (only new public attributes can be restored)")
            setattr(t, k, v)
    return t


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    t = CK.rebuild_tensor(storage, storage_offset, size, stride)
    if type(requires_grad) is not bool:
        raise RuntimeError("msnb torch.load: bad storage record: requires_grad is not a bool")
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    from ._tensor import Tensor
    from .nn.parameter import Parameter

    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        raise RuntimeError("msnb torch.load: bad storage record: a Parameter's data is not a tensor of the file")
    return Parameter(data, requires_grad=requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


_REBUILDERS = {"_rebuild_tensor_v2": _rebuild_tensor_v2, "_rebuild_parameter": _rebuild_parameter,
               "_rebuild_parameter_with_state": _rebuild_parameter_with_state}


def _rebuild_from_type_v2(func, new_type, args, state):
    from ._tensor import Tensor
    from .nn.parameter import Parameter

    if not any(func is f for f in _REBUILDERS.values()) or not isinstance(args, tuple):
        raise pickle.UnpicklingError("msnb torch.load: _rebuild_from_type_v2 in the file does not rebuild a "
                                     "tensor")
    if new_type is not Tensor and new_type is not Parameter:
        raise pickle.UnpicklingError(f"msnb torch.load: tensor subclass {new_type!r:.80} is not supported by "
                                     "msnb yet")
    return _set_state(func(*args), state)


def _torch_global(module: str, name: str):
    """(msnb object, callable from the file?) for an allowed ``torch.*`` global, or None."""
    if module == "torch._utils" and name in _REBUILDERS:
        return _REBUILDERS[name], True
    if module == "torch._tensor" and name == "_rebuild_from_type_v2":
        return _rebuild_from_type_v2, True
    if module == "torch" and name in _STORAGES:
        return CK.StorageType(name), False
    if module == "torch" and name in _DTYPE_OF_NAME:
        return _DTYPE_OF_NAME[name], False
    if (module, name) in {("torch", "Tensor"), ("torch._tensor", "Tensor")}:
        from ._tensor import Tensor
        return Tensor, False
    if (module, name) == ("torch.nn.parameter", "Parameter"):
        from .nn.parameter import Parameter
        return Parameter, False
    return None


class _TrustedUnpickler(pickle.Unpickler):
    """``weights_only=False``: any global (the user trusts the file), torch names mapped to msnb."""

    def __init__(self, file, archive, **kwargs):
        super().__init__(file, **kwargs)
        self._archive, self._seen = archive, {}

    def find_class(self, module, name):
        if module == "torch" or module.startswith("torch."):
            got = _torch_global(module, name)
            if got is not None:
                return got[0]
            import importlib
            try:
                return getattr(importlib.import_module("msnb.adapter.torch" + module[len("torch"):]), name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(
                    f"msnb: the file needs '{module}.{name}', which msnb's torch does not provide") from None
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple):
            raise pickle.UnpicklingError(f"persistent_load id must be tuple, but got {type(pid)}")
        return CK.storage_from_pid(self._archive, pid, self._seen)


def _weights_only_message(msg):
    return f"Weights only load failed. {_UNSAFE_HINT}\n\nWeightsUnpickler error: {msg}"

# what a corrupt pickle can raise inside the unpickler: reported, never passed on raw
_CORRUPT = (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError, EOFError, struct.error,
            UnicodeError, LookupError, ImportError, RecursionError)


def _resolve_weights_only(weights_only, pickle_module):
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        weights_only = True
    elif force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the `weights_only` "
                      "argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=3)
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    return bool(weights_only)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """msnb implementation of ``torch.load`` for PyTorch's zip checkpoint format.

    ``weights_only`` defaults to True (as in PyTorch >= 2.6): only tensors,
    state dicts, plain containers and the globals marked with
    :func:`add_safe_globals` load; ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` /
    ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` act as in PyTorch.  ``mmap=True``
    maps storage records from the file instead of reading them (``f`` must be
    a path).  ``map_location`` is accepted and ignored: tensors land on
    MindSpore's active device.  ``from_torch=...`` (MSAdapter's flag) is
    accepted and dropped; files from real PyTorch always load.  A bad file is refused
    with one ``RuntimeError`` / ``pickle.UnpicklingError`` sentence
    (``docs/safety.md``)."""
    pickle_load_args.pop("from_torch", None)
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_load_args and set(pickle_load_args) != {"encoding"}:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    encoding = pickle_load_args.pop("encoding", "utf-8")
    if CK.is_path(f):
        with open(f, "rb") as fh:
            return _load(fh, os.fspath(f), weights_only, bool(mmap), encoding, pickle_load_args)
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _load(f, "<file object>", weights_only, False, encoding, pickle_load_args)


def _load(fh, name, weights_only, use_mmap, encoding, pickle_load_args):
    archive = CK.open_archive(fh, name, use_mmap)
    seen = {}  # storage key -> FileStorage; cleared before the archive closes (frees mmap views)
    try:
        member = f"{archive.prefix}/data.pkl"
        data = archive.read(member)
        try:
            if weights_only:
                return WO.WeightsUnpickler(
                    data, _torch_global, lambda pid: CK.storage_from_pid(archive, pid, seen),
                    encoding=encoding).load()
            return _TrustedUnpickler(io.BytesIO(data), archive, encoding=encoding, **pickle_load_args).load()
        except pickle.UnpicklingError as e:
            msg = str(e)
            if not weights_only and not msg.startswith("msnb"):  # the C unpickler's own words
                msg = f"msnb torch.load: {name}: corrupt member {member} ({msg[:200]})"
            raise pickle.UnpicklingError(_weights_only_message(msg) if weights_only else msg) from None
        except _CORRUPT as e:
            detail = f"{type(e).__name__}: {str(e)[:200]}"
            err = f"msnb torch.load: {name}: corrupt member {member} ({detail})"
            raise pickle.UnpicklingError(_weights_only_message(err) if weights_only else err) from None
    finally:
        seen.clear()
        CK.close_quietly(archive)


# --------------------------------------------------------------------------- safe globals
def add_safe_globals(safe_globals):
    """Mark globals (``fn`` / ``cls`` or ``(obj, "module.qualname")``) as safe for ``weights_only`` load:
    they can be called and their instances can have state set."""
    WO.add_safe_globals(safe_globals)


def get_safe_globals():
    """The user-added globals that are safe for ``weights_only`` load."""
    return WO.get_safe_globals()


def clear_safe_globals():
    """Clear the user-added globals for ``weights_only`` load."""
    WO.clear_safe_globals()


class safe_globals(contextlib.ContextDecorator):
    """Context manager adding ``safe_globals`` for ``weights_only`` load while it is open."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        WO.add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        WO.remove_safe_globals(self.safe_globals)


def get_unsafe_globals_in_checkpoint(f):
    """The ``module.name`` globals in a checkpoint that ``weights_only`` load would refuse."""
    import pickletools

    if CK.is_path(f):
        with open(f, "rb") as fh:
            return get_unsafe_globals_in_checkpoint(io.BytesIO(fh.read()))
    fh = f if hasattr(f, "seekable") and f.seekable() else io.BytesIO(f.read())
    archive = CK.open_archive(fh, "<file>", False)
    try:
        data = archive.read(f"{archive.prefix}/data.pkl")
    finally:
        CK.close_quietly(archive)
    probe = WO.WeightsUnpickler(b"", _torch_global, None)
    out = set()
    try:
        for op, arg, _ in pickletools.genops(data):
            if op.name == "GLOBAL":
                module, _, gname = str(arg).partition(" ")
                try:
                    probe._global(module, gname)
                except pickle.UnpicklingError:
                    out.add(f"{module}.{gname}")
    except ValueError as e:
        raise pickle.UnpicklingError(f"msnb: corrupt data.pkl ({e})") from None
    return sorted(out)


from ._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.serialization")
