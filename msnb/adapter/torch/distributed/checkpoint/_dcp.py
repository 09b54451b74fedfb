"""msnb's distributed checkpoint: one directory, one data file per rank plus ``.metadata``.

Format (msnb's own; PyTorch's is pickle-based): ``.metadata`` is JSON --
``{"format": "msnb-dcp 1", "world_size": N, "files": {name: sha256},
"entries": {key: entry}}`` where a tensor entry is ``{"tensor": dtype,
"size": [...], "chunks": [{"file", "name", "offsets", "sizes"}]}`` and a
non-tensor value is ``{"value": <tagged JSON>}``.  ``__<rank>_0.distcp`` is
written by msnb's ``torch.save`` (a dict of this rank's pieces) and read back
with ``torch.load(weights_only=True)``: loading never runs code from the files.

Keys are the nested state dict flattened with dots (``model.w1.weight``,
``optim.state.w1.weight.exp_avg``), as PyTorch's.  A DTensor (or a sharded
parameter) is saved as this rank's piece with its offsets in the whole
tensor; a plain tensor is taken to be the same on every rank and written once
(by rank 0).  Loading fills the target state dict in place: each target
tensor's region (the whole tensor, or a DTensor's piece under the target's
own layout) is assembled from whichever saved chunks overlap it, so a
checkpoint saved on N ranks loads on M ranks.  Every file the load needs is
checked against the checksum in ``.metadata`` and read completely before the
first target is written: a damaged or truncated file changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import os

from ..._missing import NotSupportedError, not_supported_message
from .metadata import BytesStorageMetadata, ChunkStorageMetadata, Metadata, TensorStorageMetadata

__all__ = ["CheckpointException", "Stateful", "save_dir", "load_dir", "METADATA", "FORMAT"]

FORMAT = "msnb-dcp 1"
METADATA = ".metadata"


class CheckpointException(BaseException):
    """msnb implementation of ``torch.distributed.checkpoint.CheckpointException`` (a BaseException, as
    PyTorch's): a save or load that failed, in one line."""

    def __init__(self, msg, failures=None):
        super().__init__(msg, failures or {})
        self._failures = failures or {}

    @property
    def failures(self):
        return self._failures

    def __str__(self):
        return self.args[0]


def _torch():
    import msnb.adapter.torch as torch
    return torch


def _dist():
    from ... import distributed
    return distributed


def _is_stateful(v):
    return callable(getattr(v, "state_dict", None)) and callable(getattr(v, "load_state_dict", None)) and \
        not isinstance(v, (dict, list, tuple))


class Stateful:
    """msnb implementation of ``torch.distributed.checkpoint.stateful.Stateful``: any object with
    ``state_dict()`` and ``load_state_dict(sd)`` counts (``isinstance`` checks the two methods)."""

    def state_dict(self):  # pragma: no cover - a protocol: subclasses define it
        raise NotImplementedError

    def load_state_dict(self, state_dict):  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, other):
        if cls is Stateful:
            return all(callable(getattr(other, m, None)) for m in ("state_dict", "load_state_dict"))
        return NotImplemented


# --- flattening --------------------------------------------------------------------------------
def _flatten(obj, prefix, out, parents):
    """``out[key] = (container, slot, leaf)`` for every leaf of nested dicts / lists."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, (dict, list)) and v:
                _flatten(v, key, out, parents)
            else:
                out[key] = (obj, k, v)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            key = f"{prefix}.{i}"
            if isinstance(v, (dict, list)) and v:
                _flatten(v, key, out, parents)
            else:
                out[key] = (obj, i, v)


def _resolved(state_dict):
    """The state dict with each top-level Stateful replaced by its ``state_dict()``."""
    return {k: (v.state_dict() if _is_stateful(v) else v) for k, v in state_dict.items()}


def _encode(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"float": repr(v)}
    if isinstance(v, tuple):
        return {"tuple": [_encode(x) for x in v]}
    if isinstance(v, list):
        return [_encode(x) for x in v]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"dict": {k: _encode(x) for k, x in v.items()}}
    raise NotSupportedError(not_supported_message(
        f"torch.distributed.checkpoint.save of a {type(v).__name__} value (msnb saves tensors, DTensors, "
        "numbers, strings, None and lists / tuples / dicts of them)"))


def _decode(v):
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if isinstance(v, dict):
        if "float" in v:
            return float(v["float"])
        if "tuple" in v:
            return tuple(_decode(x) for x in v["tuple"])
        return {k: _decode(x) for k, x in v["dict"].items()}
    return v


# --- geometry ----------------------------------------------------------------------------------
def _dtensor_of(v):
    """(local tensor, mesh, placements, global shape) of a DTensor or sharded parameter, else None."""
    from ..tensor._api import DTensor
    from ..tensor._sharded import is_sharded
    if isinstance(v, DTensor):
        return v.to_local(), v.device_mesh, v.placements, tuple(v.shape)
    if is_sharded(v):
        mesh, placements, shape = v.__dict__["_dspec"]
        return v, mesh, placements, tuple(shape)
    return None


def _region(mesh, placements, shape):
    """(offsets, sizes, writes) of this rank's piece; ``writes`` is False where a replicated mesh
    dimension already has the piece on coordinate 0 (one copy is saved)."""
    from ..tensor.placement_types import Replicate, Shard
    coord = mesh.get_coordinate()
    offsets, sizes, writes = [0] * len(shape), list(shape), True
    for i, pl in enumerate(placements):
        if isinstance(pl, Shard):
            d = pl.dim % len(shape)
            n, k = sizes[d], mesh.size(i)
            step = -(-n // k) if n else 0
            lo = min(coord[i] * step, n)
            offsets[d] += lo
            sizes[d] = max(0, min(step, n - lo))
        elif isinstance(pl, Replicate):
            writes = writes and coord[i] == 0
        else:
            raise NotSupportedError(not_supported_message(
                f"torch.distributed.checkpoint.save of a DTensor with {pl} placements"))
    return offsets, sizes, writes


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


# --- save --------------------------------------------------------------------------------------
def _rank_world(no_dist, process_group):
    d = _dist()
    if no_dist or not d.is_initialized():
        return 0, 1, False
    return d.get_rank(process_group), d.get_world_size(process_group), True


def save_dir(state_dict, path, *, process_group=None, no_dist=False):
    """Write ``state_dict`` (this rank's part) to the directory ``path``; returns the Metadata."""
    torch = _torch()
    rank, world, collective = _rank_world(no_dist, process_group)
    flat = {}
    _flatten(_resolved(state_dict), "", flat, None)
    os.makedirs(path, exist_ok=True)
    fname = f"__{rank}_0.distcp"
    pieces, entries = {}, {}
    for i, (key, (_, _, v)) in enumerate(flat.items()):
        dt = _dtensor_of(v)
        if dt is not None:
            local, mesh, placements, shape = dt
            offsets, sizes, writes = _region(mesh, placements, shape)
            entry = {"tensor": _dtype_name(local), "size": list(shape), "chunks": []}
            if writes and all(sizes):
                pieces[f"t{i}"] = local.detach().contiguous().clone()
                entry["chunks"].append({"file": fname, "name": f"t{i}", "offsets": offsets, "sizes": sizes})
        elif isinstance(v, torch.Tensor):
            entry = {"tensor": _dtype_name(v), "size": list(v.shape), "chunks": []}
            if rank == 0:
                pieces[f"t{i}"] = v.detach().contiguous().clone()
                entry["chunks"].append({"file": fname, "name": f"t{i}", "offsets": [0] * v.dim(),
                                        "sizes": list(v.shape)})
        else:
            entry = {"value": _encode(v)} if rank == 0 else {}
        entries[key] = entry
    data = os.path.join(path, fname)
    torch.save(pieces, data)
    with open(data, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    mine = json.dumps({"file": fname, "sha256": digest, "entries": entries})
    everyone = [mine]
    if collective:
        everyone = [None] * world
        _dist().all_gather_object(everyone, mine, group=process_group)
    merged, files = {}, {}
    for text in everyone:
        part = json.loads(text)
        files[part["file"]] = part["sha256"]
        for key, e in part["entries"].items():
            have = merged.setdefault(key, {k: v for k, v in e.items() if k != "chunks"})
            if "chunks" in e:
                have.setdefault("chunks", []).extend(e["chunks"])
            elif "value" in e:
                have["value"] = e["value"]
    if rank == 0:
        tmp = os.path.join(path, METADATA + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "world_size": world, "files": files, "entries": merged}, f)
        os.replace(tmp, os.path.join(path, METADATA))
    if collective:
        _dist().barrier(group=process_group)
    return _metadata(merged)


def _metadata(entries):
    torch = _torch()
    out = {}
    for key, e in entries.items():
        if "tensor" in e:
            out[key] = TensorStorageMetadata({"dtype": getattr(torch, e["tensor"])}, torch.Size(e["size"]),
                                             [ChunkStorageMetadata(torch.Size(c["offsets"]), torch.Size(c["sizes"]))
                                              for c in e.get("chunks", [])])
        else:
            out[key] = BytesStorageMetadata()
    return Metadata(out)


# --- load --------------------------------------------------------------------------------------
def _fail(path, why):
    return CheckpointException(f"distributed checkpoint {os.fspath(path)}: {why}")


def read_metadata(path):
    """The parsed ``.metadata`` of msnb's checkpoint directory ``path`` (nothing is executed)."""
    meta = os.path.join(path, METADATA)
    if not os.path.isfile(meta):
        raise _fail(path, f"no {METADATA} file (not a distributed checkpoint directory)")
    with open(meta, "rb") as f:
        raw = f.read()
    if raw[:1] == b"\x80":
        raise NotSupportedError(not_supported_message(
            "reading a distributed checkpoint written by PyTorch (pickled .metadata) with "
            "torch.distributed.checkpoint.load"))
    try:
        info = json.loads(raw.decode("utf-8"))
        if info.get("format") != FORMAT:
            raise ValueError(f"format {info.get('format')!r}, expected {FORMAT!r}")
        entries, files = info["entries"], info["files"]
        if not isinstance(entries, dict) or not isinstance(files, dict):
            raise ValueError("entries / files are not mappings")
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as e:
        raise _fail(path, f"damaged {METADATA} ({e})") from None
    return info


def _read_file(path, name, digest):
    torch = _torch()
    data = os.path.join(path, name)
    if not os.path.basename(name) == name or not os.path.isfile(data):
        raise _fail(path, f"data file {name} is missing")
    with open(data, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != digest:
        raise _fail(path, f"data file {name} is damaged or truncated (checksum differs from {METADATA})")
    import io
    try:
        return torch.load(io.BytesIO(raw), weights_only=True)
    except Exception as e:  # noqa: BLE001 - any reader failure is the file's fault: say so in one line
        raise _fail(path, f"data file {name} cannot be read ({type(e).__name__}: {str(e).splitlines()[0]})") \
            from None


def _target_region(v):
    """(tensor to fill, offsets, sizes) of a target leaf, or None for a non-tensor."""
    torch = _torch()
    dt = _dtensor_of(v)
    if dt is not None:
        local, mesh, placements, shape = dt
        offsets, sizes, _ = _region(mesh, placements, shape)
        return local, shape, offsets, sizes
    if isinstance(v, torch.Tensor):
        return v, tuple(v.shape), [0] * v.dim(), list(v.shape)
    return None


def _assemble(path, key, entry, target, offsets, sizes, files):
    """The target region of ``key`` from the saved chunks that overlap it."""
    torch = _torch()
    out = torch.empty(sizes, dtype=target.dtype)
    covered = 0
    for c in entry.get("chunks", []):
        lo = [max(a, b) for a, b in zip(offsets, c["offsets"])]
        hi = [min(a + n, b + m) for a, n, b, m in zip(offsets, sizes, c["offsets"], c["sizes"])]
        if any(h <= l for l, h in zip(lo, hi)) and sizes:
            continue
        piece = files[c["file"]].get(c["name"])
        if piece is None or list(piece.shape) != list(c["sizes"]):
            raise _fail(path, f"data file {c['file']} lacks the piece of {key!r} that {METADATA} lists")
        dst = tuple(slice(l - o, h - o) for l, h, o in zip(lo, hi, offsets))
        src = tuple(slice(l - o, h - o) for l, h, o in zip(lo, hi, c["offsets"]))
        if sizes:
            out[dst] = piece[src].to(target.dtype)
        else:
            out = piece.to(target.dtype).reshape(())
        covered += math.prod(h - l for l, h in zip(lo, hi))
    if covered != math.prod(sizes):
        raise _fail(path, f"the saved chunks of {key!r} do not cover this rank's part of it")
    return out


def load_dir(state_dict, path, *, allow_partial_load=False):
    """Fill ``state_dict`` in place from the directory ``path`` (see the module docstring)."""
    torch = _torch()
    info = read_metadata(path)
    entries = info["entries"]
    resolved = _resolved(state_dict)
    flat = {}
    _flatten(resolved, "", flat, None)
    plan, needed = [], set()
    for key, (container, slot, v) in flat.items():
        if key not in entries:
            if allow_partial_load:
                continue
            raise _fail(path, f"Missing key in checkpoint state_dict: {key}.")
        e = entries[key]
        region = _target_region(v)
        if region is None:
            if "value" not in e:
                raise _fail(path, f"{key!r} is a tensor in the checkpoint, {type(v).__name__} in the state_dict")
            plan.append((container, slot, None, _decode(e["value"])))
            continue
        target, shape, offsets, sizes = region
        if "tensor" not in e:
            raise _fail(path, f"{key!r} is a value in the checkpoint, a tensor in the state_dict")
        if list(shape) != list(e["size"]):
            raise _fail(path, f"Size mismatch for {key!r}: the checkpoint holds {tuple(e['size'])}, the "
                              f"state_dict {tuple(shape)}")
        needed.update(c["file"] for c in e.get("chunks", []))
        plan.append((container, slot, (target, offsets, sizes), key))
    files = {}
    for name in sorted(needed):
        if name not in info["files"]:
            raise _fail(path, f"data file {name} is not listed in {METADATA}")
        files[name] = _read_file(path, name, info["files"][name])
    ready = []
    for container, slot, region, what in plan:
        if region is None:
            ready.append((container, slot, None, what))
        else:
            target, offsets, sizes = region
            ready.append((container, slot, target, _assemble(path, what, entries[what], target, offsets, sizes,
                                                             files)))
    with torch.no_grad():  # everything read and checked: now write
        for container, slot, target, value in ready:
            if target is None:
                container[slot] = value
            else:
                target.copy_(value)
    for k, v in state_dict.items():
        if _is_stateful(v):
            v.load_state_dict(resolved[k])
        else:
            state_dict[k] = resolved[k]  # a top-level value the load replaced
