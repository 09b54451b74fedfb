"""Hostile checkpoint files, generated: each one is a kind of bad file
``torch.load`` must refuse (or load harmlessly) in one clear sentence.

``cases(dirpath, canary)`` writes the files and returns
``[(name, filename, modes, expect)]`` where ``modes`` are the
``weights_only`` values to load with and ``expect`` is a regex the error
must match (``None``: the file may load; an error is still a clean one).
``canary`` is a path a code payload would create: it must never exist.
"""

from __future__ import annotations

import collections
import io
import pickle
import random
import struct
import zipfile
import zlib

import numpy as np

from msnb.adapter.torch import serialization as S

__all__ = ["cases", "legit_checkpoint"]

BOTH = (True, False)
SAFE = (True,)
_F4 = np.arange(4, dtype=np.float32).tobytes()


class _Call:
    """Pickled as ``REDUCE func args`` (func a ``GLOBAL`` by name)."""

    def __init__(self, module, name, *args):
        self.func, self.args = S._Global(module, name), args


class _Pickler(S._TorchPickler):
    def reducer_override(self, obj):
        if isinstance(obj, _Call):
            return obj.func, obj.args
        return super().reducer_override(obj)


def _pkl(obj):
    buf = io.BytesIO()
    _Pickler(buf, {}).dump(obj)
    return buf.getvalue()


def _zip(pkl, records=None, prefix="archive", compress=zipfile.ZIP_STORED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compress) as zf:
        zf.writestr(f"{prefix}/data.pkl", pkl)
        zf.writestr(f"{prefix}/byteorder", "little")
        for k, v in (records or {}).items():
            zf.writestr(f"{prefix}/data/{k}", v)
        zf.writestr(f"{prefix}/version", "3\n")
    return out.getvalue()


def _tensor_file(offset, size, stride, numel=4, record=_F4, key="0", storage="FloatStorage", grad=False):
    ref = S._StorageRef(key, storage, numel)
    call = _Call("torch._utils", "_rebuild_tensor_v2", ref, offset, size, stride, grad, collections.OrderedDict())
    return _zip(_pkl({"t": call}), {} if record is None else {key: record})


def legit_checkpoint():
    """A small valid checkpoint written by msnb (values 0..3 and a nested dict)."""
    import msnb.adapter.torch as torch
    buf = io.BytesIO()
    torch.save({"w": torch.arange(4).float(), "meta": {"lr": 0.1, "steps": [1, 2]}}, buf)
    return buf.getvalue()


def _raw(body, proto=2):
    return _zip(b"\x80" + bytes([proto]) + body + b".")


def _g(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _u(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def _build_on_global(module, name, attr):
    """``GLOBAL module.name`` then BUILD with ``{attr: None}`` and slot state ``{attr: None}``."""
    state = b"N}" + _u(attr) + b"Ns\x86"  # (None, {attr: None}): pickle's slotstate -> setattr
    return _raw(_g(module, name) + state + b"b")


def _code_payloads(canary):
    cmd = f"touch {canary}"
    out = {}
    for module, name in [("os", "system"), ("posix", "system"), ("subprocess", "call"), ("builtins", "exec"),
                         ("builtins", "eval"), ("__builtin__", "eval"), ("builtins", "getattr"),
                         ("nt", "system"), ("sys", "exit")]:
        out[f"code-{module}.{name}"] = (_raw(_g(module, name) + _u(cmd) + b"\x85R"), "not an allowed global|blocked")
    # protocol 4 STACK_GLOBAL spelling of os.system
    out["code-stack-global"] = (_raw(_u("os") + _u("system") + b"\x93" + _u(cmd) + b"\x85R", proto=4), "blocked")
    # a plain pickle with a __reduce__ payload (no zip at all)
    out["code-plain-pickle"] = (b"\x80\x02" + _g("os", "system") + _u(cmd) + b"\x85R.", "plain pickle")
    # the payload hidden in a legacy-format file
    magic = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2)
    out["code-legacy"] = (magic + b"\x80\x02" + _g("os", "system") + _u(cmd) + b"\x85R.", "legacy")
    return out


def _state_changes():
    out = {}
    for module, name, attr in [("torch", "Size", "numel"), ("torch", "device", "type"),
                               ("torch._utils", "_rebuild_tensor_v2", "__code__"),
                               ("collections", "OrderedDict", "__repr__"), ("torch", "FloatStorage", "dtype"),
                               ("torch", "float32", "itemsize"), ("builtins", "set", "add")]:
        out[f"build-on-{module}.{name}"] = (_build_on_global(module, name, attr),
                                             "state setting on a class|Can only build")
    # state on a loaded tensor that would overwrite msnb's own attributes
    args = (S._StorageRef("0", "FloatStorage", 4), 0, (4,), (1,), False, collections.OrderedDict())
    call = _Call("torch._tensor", "_rebuild_from_type_v2", S._Global("torch._utils", "_rebuild_tensor_v2"),
                 S._Global("torch", "Tensor"), args, {"_vbase": None})
    out["state-on-tensor"] = (_zip(_pkl({"t": call}), {"0": _F4}), "refusing to set attribute")
    out["build-on-set"] = (_raw(b"\x8f}" + _u("x") + b"Nsb"), "Can only build")
    out["newobj-tensor"] = (_raw(_g("torch", "Tensor") + b"J\x00\xca\x9a\x3b\x85\x81"), "Can only create")
    out["setitem-on-list"] = (_raw(b"]" + _u("k") + b"Ns"), "Can only SETITEM")
    out["append-on-dict"] = (_raw(b"}Na"), "Can only append")
    return out


def _allocation_bombs():
    out = {}
    out["size-of-range"] = (_raw(_g("torch", "Size") + _g("builtins", "range") + b"J\x00\xe1\xf5\x05\x85R\x85R"),
                            "GLOBAL range was not an allowed")
    out["list-callable"] = (_raw(_g("builtins", "list") + b")R"), "GLOBAL list was not an allowed")
    out["tensor-callable"] = (_raw(_g("torch", "Tensor") + b"J\x00\xca\x9a\x3b\x85R"), "unrecognized function")
    out["bytearray-length"] = (_raw(_g("builtins", "bytearray") + b"J\x00\xca\x9a\x3b\x85R"), "not a length")
    out["size-too-long"] = (_raw(_g("torch", "Size") + b"(" + b"K\x01" * 5000 + b"t\x85R"), "torch.Size")
    out["stride0-1e9"] = (_tensor_file(0, (10 ** 9,), (0,)), "expanded tensor")
    out["size-1e8"] = (_tensor_file(0, (10 ** 8,), (1,)), "not resizable")
    out["string-4GB-declared"] = (_raw(b"X\xff\xff\xff\xff" + b"abc"), "truncated")
    out["mark-bomb"] = (_raw(b"(" * 20000), "empty stack|corrupt")
    out["deep-nesting"] = (_raw(b"]" * 20000 + b"a" * 19999), None)
    shared = b"]q\x00"
    for i in range(1, 40):  # a DAG of tuples, 2**40 leaves if expanded
        shared += b"h" + bytes([i - 1]) + b"h" + bytes([i - 1]) + b"\x86q" + bytes([i])
    out["shared-dag"] = (_raw(shared), None)
    return out


def _bomb_zip(member_is_pkl, size=300 * 2 ** 20):
    """A deflated member inflating to ``size`` bytes, built in chunks (the zip stays ~300 KB)."""
    comp = zlib.compressobj(1, zlib.DEFLATED, -15)
    chunk = b"\x00" * 2 ** 20
    parts, crc = [], 0
    for _ in range(size // len(chunk)):
        parts.append(comp.compress(chunk))
        crc = zlib.crc32(chunk, crc)
    parts.append(comp.flush())
    data = b"".join(parts)
    name = "archive/data.pkl" if member_is_pkl else "archive/data/0"
    members = {name: b""}
    if not member_is_pkl:
        members["archive/data.pkl"] = _pkl({"t": _Call(
            "torch._utils", "_rebuild_tensor_v2", S._StorageRef("0", "ByteStorage", size), 0, (size,), (1,),
            False, collections.OrderedDict())})
    return _patch_member(_zip_of(members), name, data, crc, size)


def _patch_member(archive, name, stream, crc, size):
    """``archive`` with member ``name`` replaced by the raw deflate ``stream`` (crc, inflated size)."""
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    entries = []
    for info in src.infolist():
        body = stream if info.filename == name else src.read(info.filename)
        method = zipfile.ZIP_DEFLATED if info.filename == name else zipfile.ZIP_STORED
        c = crc if info.filename == name else zlib.crc32(body)
        usize = size if info.filename == name else len(body)
        fname = info.filename.encode()
        off = out.tell()
        out.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21, c, len(body), usize,
                              len(fname), 0) + fname + body)
        entries.append((fname, method, c, len(body), usize, off))
    cd = out.tell()
    for fname, method, c, csize, usize, off in entries:
        out.write(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, c, csize, usize,
                              len(fname), 0, 0, 0, 0, 0, off) + fname)
    end = out.tell()
    out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), end - cd, cd, 0))
    return out.getvalue()


def _storage_records():
    out = {}
    out["negative-offset"] = (_tensor_file(-1, (2,), (1,)), "invalid storage offset")
    out["huge-offset"] = (_tensor_file(2 ** 62, (2,), (1,)), "not resizable")
    out["negative-stride"] = (_tensor_file(0, (2,), (-1,)), "overflowed")
    out["size-stride-lengths"] = (_tensor_file(0, (2, 2), (1,)), "unequal size length")
    out["negative-size"] = (_tensor_file(0, (-2,), (1,)), "negative dimension")
    out["one-past-end"] = (_tensor_file(0, (5,), (1,)), "not resizable")
    out["stride-past-end"] = (_tensor_file(1, (2,), (3,)), "not resizable")
    out["bigint-size"] = (_tensor_file(0, (2 ** 2000,), (1,)), "not resizable")
    out["str-size"] = (_tensor_file(0, ("a",), (1,)), "sequence of ints")
    out["float-offset"] = (_tensor_file(0.5, (2,), (1,)), "offset must be an int")
    out["numel-lies"] = (_tensor_file(0, (100,), (1,), numel=100), "record size")
    out["missing-record"] = (_tensor_file(0, (4,), (1,), record=None), "is missing")
    out["key-traversal"] = (_tensor_file(0, (4,), (1,), key="../../../etc/passwd"), "not a record name")
    out["bad-storage-arg"] = (_zip(_pkl({"t": _Call("torch._utils", "_rebuild_tensor_v2", 5, 0, (1,), (1,), False,
                                                     collections.OrderedDict())})), "bad storage record")
    out["bad-pid"] = (_raw(_u("storage") + b"\x85Q"), "bad storage record")
    out["pid-not-tuple"] = (_raw(b"K\x05Q"), "persistent_load id must be tuple")
    out["requires-grad-int"] = (_tensor_file(0, (2,), (1,), storage="LongStorage", numel=2,
                                             grad=True), "floating point")
    out["deflate-bomb-pkl"] = (_bomb_zip(True), "zip bomb")
    out["deflate-bomb-storage"] = (_bomb_zip(False), "zip bomb")
    return out


def _containers(legit):
    out = {}
    out["empty-file"] = (b"", "empty")
    out["text-file"] = (b"hello, this is not a checkpoint\n", "not a PyTorch checkpoint")
    out["legacy-magic"] = (pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + pickle.dumps(1001, protocol=2),
                           "legacy")
    out["plain-pickle"] = (pickle.dumps({"a": [1, 2]}, protocol=2), "plain pickle")
    out["zip-no-data-pkl"] = (_zip_of({"archive/other": b"x"}), "no <archive>/data.pkl")
    out["torchscript"] = (_zip_of({"m/constants.pkl": b"\x80\x02).", "m/code/m.py": b""}), "TorchScript")
    out["traversal-names"] = (_zip_of({"../../evil/data.pkl": b"\x80\x02K\x07.", "/abs/data/0": b"x"}), None)
    out["absolute-prefix"] = (_zip_of({"/data.pkl": b"\x80\x02K\x07."}), None)
    out["bad-byteorder"] = (_zip_of({"a/data.pkl": b"\x80\x02K\x07.", "a/byteorder": b"middle"}), "byteorder")
    out["garbage-pkl"] = (_zip(bytes(range(256)) * 4), "Unsupported operand|corrupt|truncated")
    out["bad-utf8"] = (_raw(b"X\x02\x00\x00\x00\xff\xfe"), "UTF-8|utf-8")
    out["memo-miss"] = (_raw(b"h\x07"), "memo entry|Memo value")
    out["unhashable-key"] = (_raw(b"}]Ns"), "corrupt")
    out["complex-garbage"] = (_raw(_g("builtins", "complex") + _u("zz") + b"\x85R"), "corrupt member")
    for frac in (0.1, 0.5, 0.9, 0.99):
        out[f"truncated-{frac}"] = (legit[:int(len(legit) * frac)], "truncated")
    out["polyglot-pickle-zip"] = (pickle.dumps([1, 2], protocol=2) + legit, None)
    out["polyglot-png-zip"] = (b"\x89PNG\r\n\x1a\n" + b"\x00" * 100 + legit, None)
    out["zip-trailing-garbage"] = (legit + b"\x00" * 70000, "truncated|corrupt|not a PyTorch")
    rng = random.Random(13)
    for i in range(40):
        b = bytearray(legit)
        for _ in range(rng.choice([1, 1, 2, 8])):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        out[f"bitflip-{i}"] = (bytes(b), None)
    return out


def _zip_of(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for k, v in members.items():
            zf.writestr(k, v)
    return out.getvalue()


def cases(dirpath, canary):
    legit = legit_checkpoint()
    groups = [(_code_payloads(canary), SAFE), (_state_changes(), SAFE), (_allocation_bombs(), SAFE),
              (_storage_records(), BOTH), (_containers(legit), BOTH)]
    out = []
    for group, modes in groups:
        for name, (data, expect) in group.items():
            fname = dirpath / f"{name}.pt"
            fname.write_bytes(data)
            out.append((name, str(fname), modes, expect))
    return out
