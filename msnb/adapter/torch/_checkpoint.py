"""Reading PyTorch's checkpoint files safely: the archive and its storages.

``open_archive`` recognises what a file is before anything is unpickled
(zip checkpoint, truncated zip, TorchScript archive, legacy pre-1.6 file,
plain pickle, something else) and says so in one sentence.  Zip members are
read through the zip directory with bounded sizes: ``data.pkl`` and any
compressed member may not inflate past a cap (a zip bomb is refused, not
read), a storage record must be exactly as long as its persistent id says,
and with ``mmap=True`` storage records are mapped from the file rather than
read.

``rebuild_tensor`` validates size, stride and offset against the storage
before any element is read, as PyTorch does (its ``RuntimeError`` wording),
and keeps tensors that share a storage in the file as views of one
storage: a write to one is seen in the others.
"""

from __future__ import annotations

import mmap as _mmap
import os
import pickle
import struct
import zipfile
import zlib

import numpy as np

from . import _dtype as D

__all__ = ["open_archive", "Archive", "FileStorage", "rebuild_tensor", "INFLATE_LIMIT", "EXPAND_LIMIT"]

# a compressed member (PyTorch never writes one) may inflate to at most this
INFLATE_LIMIT = 256 * 2 ** 20
# a tensor whose elements overlap in its storage (stride 0: an expanded tensor)
# is materialised by msnb; refuse past this many bytes
EXPAND_LIMIT = 256 * 2 ** 20
_LEGACY_MAGIC = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2)[2:]  # LONG1 opcode + bytes

# torch storage class name -> (torch dtype, numpy dtype of the raw bytes)
STORAGES = {
    "FloatStorage": (D.float32, np.float32), "DoubleStorage": (D.float64, np.float64),
    "HalfStorage": (D.float16, np.float16), "BFloat16Storage": (D.bfloat16, np.uint16),
    "LongStorage": (D.int64, np.int64), "IntStorage": (D.int32, np.int32),
    "ShortStorage": (D.int16, np.int16), "CharStorage": (D.int8, np.int8),
    "ByteStorage": (D.uint8, np.uint8), "BoolStorage": (D.bool, np.bool_),
    "ComplexFloatStorage": (D.complex64, np.complex64), "ComplexDoubleStorage": (D.complex128, np.complex128),
}


class StorageType:
    """What ``GLOBAL torch.FloatStorage`` ... resolves to."""

    def __init__(self, name):
        self.name = name
        self.dtype, self.np_dtype = STORAGES[name]

    def __repr__(self):
        return f"torch.{self.name}"


def _bad(what, why):
    return RuntimeError(f"msnb torch.load: {what}: {why}")


def open_archive(fh, name, use_mmap):
    """An :class:`Archive` for the open binary file ``fh``, or a one-sentence ``RuntimeError``."""
    head = fh.read(64)
    fh.seek(0)
    if not head:
        raise _bad(name, "the file is empty, not a PyTorch checkpoint")
    if zipfile.is_zipfile(fh):
        fh.seek(0)
        try:
            zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError, struct.error) as e:
            raise _bad(name, f"the zip directory is corrupt ({e})") from None
        return Archive(zf, fh, name, use_mmap)
    fh.seek(0)
    if head.startswith(b"PK\x03\x04"):
        raise _bad(name, "the file is truncated: it starts as a zip checkpoint but its zip directory "
                         "(the end of the file) is missing")
    if head[:1] == b"\x80" and head[2:2 + len(_LEGACY_MAGIC)] == _LEGACY_MAGIC:
        raise _bad(name, "the file is in the legacy (pre-1.6) torch.save format, which msnb does not "
                         "support yet; re-save it with PyTorch >= 1.6 (torch.save writes the zip format)")
    if head[:1] == b"\x80":
        raise _bad(name, "Invalid magic number; corrupt file? The file is a plain pickle, not a checkpoint "
                         "written by torch.save")
    raise _bad(name, "not a PyTorch checkpoint (neither torch.save's zip format nor its legacy format)")


class Archive:
    """A zip checkpoint: its record prefix and bounded access to its members."""

    def __init__(self, zf, fh, name, use_mmap):
        self.zf, self.fh, self.name = zf, fh, name
        names = zf.namelist()
        if any(n.endswith("/constants.pkl") or "/code/" in n for n in names) and not any(
                n.endswith("/data.pkl") for n in names):
            raise _bad(name, "the file is a TorchScript archive (torch.jit.save); torch.jit.load is not "
                             "supported by msnb yet")
        pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            raise _bad(name, "the zip file has no <archive>/data.pkl record, so it is not a checkpoint "
                             "written by torch.save")
        self.prefix = pkl[0].split("/", 1)[0]
        self._mm = None
        if use_mmap:
            try:
                self._mm = _mmap.mmap(fh.fileno(), 0, access=_mmap.ACCESS_READ)
            except (OSError, ValueError) as e:
                raise _bad(name, f"cannot memory-map the file ({e})") from None
        order = self._small("byteorder", default=b"little")
        if order not in (b"little", b"big"):
            raise _bad(name, f"corrupt member {self.prefix}/byteorder: {order[:16]!r} is not little/big")
        self.byteorder = "<" if order == b"little" else ">"

    def close(self):
        if self._mm is not None:
            try:
                self._mm.close()
            except BufferError:  # a numpy view still uses it: the OS unmaps it with the last view
                pass
        self.zf.close()

    def _info(self, member):
        try:
            return self.zf.getinfo(member)
        except KeyError:
            raise _bad(self.name, f"corrupt checkpoint: record {member} is missing (the file was probably "
                                  "not saved or copied completely)") from None

    def _small(self, rec, default):
        member = f"{self.prefix}/{rec}"
        if member not in self.zf.NameToInfo:
            return default
        return self.read(member, limit=64).strip()

    def read(self, member, limit=INFLATE_LIMIT):
        """The bytes of ``member``, refusing anything that would inflate past ``limit``."""
        info = self._info(member)
        if info.file_size > limit:
            if info.compress_type != zipfile.ZIP_STORED:
                raise _bad(self.name, f"record {member} is compressed and would inflate to "
                                      f"{info.file_size} bytes (more than {limit}); refusing a possible zip "
                                      "bomb (torch.save never compresses records)")
            if limit < INFLATE_LIMIT:
                raise _bad(self.name, f"corrupt member {member}: {info.file_size} bytes, expected at most "
                                      f"{limit}")
        try:
            with self.zf.open(info) as f:
                data = f.read(info.file_size + 1)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError, OSError,
                struct.error) as e:
            raise _bad(self.name, f"corrupt member {member} ({e})") from None
        except RuntimeError as e:  # zipfile: encrypted member
            raise _bad(self.name, f"cannot read member {member} ({e})") from None
        if len(data) != info.file_size:
            raise _bad(self.name, f"corrupt member {member}: {len(data)} bytes instead of {info.file_size}")
        return data

    def storage_array(self, key, np_dtype, numel):
        """The storage record ``data/<key>`` as a read-only 1-D numpy array of ``numel`` elements."""
        member = f"{self.prefix}/data/{key}"
        info = self._info(member)
        item = np.dtype(np_dtype).itemsize
        nbytes = numel * item
        if info.file_size != nbytes:
            raise _bad(self.name, f"bad storage record {member}: record size ({info.file_size} bytes) does "
                                  f"not match expected size ({nbytes} bytes = {numel} elements * {item} "
                                  "bytes/element)")
        native = np.dtype(np_dtype)
        dt = native if self.byteorder == ("<" if np.little_endian else ">") else native.newbyteorder(self.byteorder)
        if self._mm is not None and info.compress_type == zipfile.ZIP_STORED:
            start = self._data_offset(info)
            if start + nbytes > len(self._mm):
                raise _bad(self.name, f"the file is truncated: record {member} runs past its end")
            arr = np.frombuffer(self._mm, dtype=dt, count=numel, offset=start)
        else:
            arr = np.frombuffer(self.read(member), dtype=dt)
        return arr if dt is native else arr.astype(native)

    def _data_offset(self, info):
        self.fh.seek(info.header_offset)
        local = self.fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise _bad(self.name, f"corrupt member {info.filename}: bad local zip header")
        n, m = struct.unpack("<HH", local[26:30])
        return info.header_offset + 30 + n + m


class FileStorage:
    """One storage of the file (``data/<key>``): its elements and, once a
    tensor uses it, the msnb tensor every other tensor on it is a view of."""

    def __init__(self, arr, dtype, key):
        self.arr, self.dtype, self.key = arr, dtype, key
        self.root = None

    @property
    def numel(self):
        return int(self.arr.shape[0])


def _ints(value, what):
    if not isinstance(value, (tuple, list)) or not all(type(v) is int for v in value):
        raise RuntimeError(f"msnb torch.load: bad storage record: {what} must be a sequence of ints, got "
                           f"{type(value).__name__}")
    return tuple(value)


def _short(seq):
    text = str(list(seq))
    return text if len(text) <= 80 else text[:77] + "...]"


def check_view(storage, offset, size, stride):
    """Refuse (``RuntimeError``, PyTorch's wording) a view outside ``storage``; returns numel."""
    if type(offset) is not int:
        raise RuntimeError(f"msnb torch.load: bad storage record: storage offset must be an int, got "
                           f"{type(offset).__name__}")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {_short(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_short(size)} and "
                           f"strides={_short(stride)}")
    numel = 1
    for s in size:
        numel *= s
    need = offset + (1 + sum((n - 1) * st for n, st in zip(size, stride)) if numel else 0)
    if need > storage.numel:
        need = str(need) if need < 10 ** 30 else f"about 10**{len(str(need)) - 1}"
        raise RuntimeError(f"Trying to resize storage that is not resizable: a tensor of size {_short(size)}, "
                           f"stride {_short(stride)} and offset {str(offset)[:40]} needs {need} elements, but its "
                           f"storage data/{storage.key} holds {storage.numel} (bad storage record)")
    item = storage.arr.dtype.itemsize
    if numel > storage.numel and numel * item > EXPAND_LIMIT:
        raise RuntimeError(f"msnb torch.load: a tensor of size {_short(size)} views {storage.numel} stored "
                           f"elements with stride 0 (an expanded tensor); msnb tensors hold their own memory, "
                           f"so it would take {numel * item} bytes (more than {EXPAND_LIMIT}). Save "
                           "it un-expanded (e.g. t[:1]) and expand after loading.")
    return size, stride, numel


def _new_tensor(arr, dtype):
    from ._ops.creation import tensor as _tensor

    if dtype is D.bfloat16:
        f32 = (arr.astype(np.uint32) << 16).view(np.float32)
        return _tensor(f32).to(D.bfloat16)
    return _tensor(np.array(arr, order="C", copy=True))


def _contiguous(size):
    out, acc = [], 1
    for n in reversed(size):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


def _flat_index(offset, size, stride):
    idx = np.full((), offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return np.ascontiguousarray(np.broadcast_to(idx, size))


def _strided_view(root, offset, size, stride):
    """A view of ``root``'s elements (in storage order) at ``offset/size/stride``."""
    from ._ops import creation as C, indexing as I, shape as S

    flat_idx = C.tensor(_flat_index(offset, size, stride).reshape(-1))
    shp = tuple(size)

    def fn(r):
        return S._reshape_impl(I.gather(S._reshape_impl(r, (-1,)), 0, flat_idx), shp)

    def inv(r, new):
        put = I.index_put(S._reshape_impl(r, (-1,)), (flat_idx,), S._reshape_impl(new, (-1,)))
        return S._reshape_impl(put, tuple(r.shape))

    from .autograd.grad_mode import no_grad
    with no_grad():
        res = fn(root)
    return S._as_view(root, res, fn, inv, noncontig=stride != _contiguous(size) and 0 not in size)


def rebuild_tensor(storage, offset, size, stride):
    """The msnb tensor PyTorch's ``_rebuild_tensor_v2`` would make (validated first)."""
    if not isinstance(storage, FileStorage):
        raise RuntimeError(f"msnb torch.load: bad storage record: a tensor's storage argument is a "
                           f"{type(storage).__name__}, not a storage of the file")
    size, stride, numel = check_view(storage, offset, size, stride)
    whole = offset == 0 and numel == storage.numel and stride == _contiguous(size)
    if storage.root is None:
        if whole:  # the usual case: the tensor is its storage
            storage.root = _new_tensor(storage.arr.reshape(size), storage.dtype)
            return storage.root
        storage.root = _new_tensor(storage.arr, storage.dtype)
    elif whole and tuple(storage.root.shape) == size:
        from ._ops.shape import view
        return view(storage.root, size)
    return _strided_view(storage.root, offset, size, stride)


def storage_from_pid(archive, pid, seen):
    """The :class:`FileStorage` for a persistent id ``('storage', type, key, location, numel)``."""
    if len(pid) != 5 or pid[0] != "storage":
        raise pickle.UnpicklingError(f"msnb torch.load: bad storage record: unsupported persistent id "
                                     f"{str(pid)[:80]}")
    _, stype, key, location, numel = pid
    if not isinstance(stype, StorageType):
        raise pickle.UnpicklingError(f"msnb torch.load: bad storage record: storage type {stype!r:.60} is "
                                     "not a torch storage class")
    if type(key) is not str or not key.isalnum() or len(key) > 64:
        raise pickle.UnpicklingError(f"msnb torch.load: bad storage record: storage key {key!r:.60} is not a "
                                     "record name")
    if type(numel) is not int or numel < 0:
        raise pickle.UnpicklingError(f"msnb torch.load: bad storage record: element count {numel!r:.40}")
    got = seen.get(key)
    if got is not None:
        if got.dtype is not stype.dtype or got.numel != numel:
            raise RuntimeError(f"msnb torch.load: bad storage record: data/{key} is declared twice with "
                               "different types or sizes")
        return got
    got = seen[key] = FileStorage(archive.storage_array(key, stype.np_dtype, numel), stype.dtype, key)
    return got


def close_quietly(archive):
    try:
        archive.close()
    except (OSError, ValueError):
        pass


def is_path(f):
    return isinstance(f, (str, os.PathLike))
