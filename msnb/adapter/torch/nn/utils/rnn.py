"""msnb implementation of ``torch.nn.utils.rnn``: ``PackedSequence`` and the pack / pad helpers.

A ``PackedSequence`` holds the time steps of a batch of sequences sorted by
length, longest first: ``data`` stacks step 0 of every sequence, then step 1
of those still running, ...; ``batch_sizes[t]`` says how many run at step
``t``.  msnb's recurrent layers take one by running the padded batch with each
sequence's state frozen after its last step (see ``nn.RNNBase``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
           "unpack_sequence", "unpad_sequence", "invert_permutation"]


def _tensor(a):
    from ..._ops.creation import tensor
    return tensor(np.asarray(a, np.int64))


class PackedSequence(NamedTuple):
    """msnb implementation of ``torch.nn.utils.rnn.PackedSequence``."""

    data: object
    batch_sizes: object = None
    sorted_indices: object = None
    unsorted_indices: object = None

    def to(self, *args, **kwargs):
        return self._replace(data=self.data.to(*args, **kwargs))

    def cpu(self):
        return self

    def cuda(self, *args, **kwargs):
        return self

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None stays None)."""
    if permutation is None:
        return None
    p = permutation.numpy().astype(np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(len(p))
    return _tensor(inv)


def _lengths(lengths):
    if hasattr(lengths, "numpy"):
        return lengths.numpy().astype(np.int64).reshape(-1)
    return np.asarray(list(lengths), np.int64).reshape(-1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """msnb implementation of ``torch.nn.utils.rnn.pack_padded_sequence``."""
    lens = _lengths(lengths)
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        order = np.arange(len(lens))
        sorted_idx = None
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_idx = _tensor(order)
    if len(lens) and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    x = input.transpose(0, 1) if batch_first else input  # (T, B, *)
    slens = lens[order]
    T = int(slens[0]) if len(slens) else 0
    if T > x.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {x.shape[0]}, but got {T}")
    batch_sizes = np.array([(slens > t).sum() for t in range(T)], np.int64)
    # flat positions t * B + b of every packed element, step by step
    B = x.shape[1]
    pos = np.concatenate([t * B + order[:n] for t, n in enumerate(batch_sizes)]) if T else np.zeros(0, np.int64)
    flat = x.reshape(x.shape[0] * B, *x.shape[2:])
    data = flat.index_select(0, _tensor(pos))
    return PackedSequence(data, _tensor(batch_sizes), sorted_idx, invert_permutation(sorted_idx))


def _packed_layout(sequence):
    bs = sequence.batch_sizes.numpy().astype(np.int64)
    B = int(bs[0]) if len(bs) else 0
    order = sequence.sorted_indices.numpy().astype(np.int64) if sequence.sorted_indices is not None \
        else np.arange(B)
    lens_sorted = np.array([(bs > i).sum() for i in range(B)], np.int64)
    lens = np.empty(B, np.int64)
    lens[order] = lens_sorted
    return bs, order, lens


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """msnb implementation of ``torch.nn.utils.rnn.pad_packed_sequence``: ``(padded, lengths)``."""
    from ..._ops.creation import full
    bs, order, lens = _packed_layout(sequence)
    T, B = len(bs), (int(bs[0]) if len(bs) else 0)
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {T}")
        T = total_length
    data = sequence.data
    pos = np.concatenate([t * B + order[:n] for t, n in enumerate(bs)]) if len(bs) else np.zeros(0, np.int64)
    out = _scatter_rows(full((T * B, *data.shape[1:]), padding_value, dtype=data.dtype), pos, data)
    out = out.reshape(T, B, *data.shape[1:])
    if batch_first:
        out = out.transpose(0, 1)
    return out, _tensor(lens)


def _scatter_rows(base, pos, rows):
    """``base`` with rows ``pos`` replaced by ``rows`` (differentiable in ``rows``)."""
    from ..._ops import indexing as I, pointwise as P
    from ..._ops.creation import zeros
    keep = np.ones(base.shape[0], bool)
    keep[pos] = False
    mask = _tensor(keep).to(base.dtype).reshape(-1, *([1] * (base.ndim - 1)))
    placed = I.index_add(zeros(*base.shape, dtype=base.dtype), 0, _tensor(pos), rows)
    return P.add(P.mul(base, mask), placed)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """msnb implementation of ``torch.nn.utils.rnn.pad_sequence``."""
    from ..._ops import shape as S
    from ... import nn
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences)
    T = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        extra = T - s.shape[0]
        pad = [0, 0] * (s.ndim - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
        padded.append(nn.functional.pad(s, tuple(pad), value=padding_value) if extra else s)
    return S.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """msnb implementation of ``torch.nn.utils.rnn.unpad_sequence``."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :int(n)] for i, n in enumerate(_lengths(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """msnb implementation of ``torch.nn.utils.rnn.pack_sequence``."""
    lens = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lens, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """msnb implementation of ``torch.nn.utils.rnn.unpack_sequence``."""
    padded, lens = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lens, batch_first=True)


from ..._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.utils.rnn")
