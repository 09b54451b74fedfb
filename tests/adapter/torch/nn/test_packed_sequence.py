"""PackedSequence through msnb's recurrent layers and the nn.utils.rnn helpers,
against real PyTorch: unsorted lengths, several layers, both directions, the
padded outputs, the final states and the input gradients."""

import numpy as np
import pytest

from ..harness import mt, real

rng = np.random.default_rng(0)
X = rng.standard_normal((6, 4, 3)).astype(np.float32)
LENS = [6, 2, 4, 3]

NAMES = tuple(f"torch.nn.utils.rnn.{n}" for n in (
    "PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
    "unpack_sequence", "unpad_sequence", "invert_permutation"))


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_on_a_packed_batch(cls, bidirectional):
    real.manual_seed(0)
    rm = getattr(real.nn, cls)(3, 5, num_layers=2, bidirectional=bidirectional)
    mm = getattr(mt.nn, cls)(3, 5, num_layers=2, bidirectional=bidirectional)
    mm.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in rm.state_dict().items()})
    res = []
    for lib, mod in ((real, rm), (mt, mm)):
        x = lib.tensor(X).requires_grad_(True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(x, LENS, enforce_sorted=False)
        out, h = mod(packed)
        h = h[0] if cls == "LSTM" else h
        padded, lens = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        (padded.sum() + h.sum()).backward()
        res.append((out.data.detach().numpy(), out.batch_sizes.numpy(), padded.detach().numpy(), lens.numpy(),
                    h.detach().numpy(), x.grad.numpy()))
    for r, m in zip(*res):
        np.testing.assert_allclose(m, r, rtol=1e-5, atol=1e-5)


def test_pad_and_pack_helpers():
    seqs = [rng.standard_normal((n, 2)).astype(np.float32) for n in (3, 5, 1)]
    res = []
    for lib in (real, mt):
        ts = [lib.tensor(s) for s in seqs]
        padded = lib.nn.utils.rnn.pad_sequence(ts, batch_first=True, padding_value=-1.0)
        packed = lib.nn.utils.rnn.pack_sequence(ts, enforce_sorted=False)
        back = lib.nn.utils.rnn.unpack_sequence(packed)
        unpadded = lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor([3, 5, 1]), batch_first=True)
        inv = lib.nn.utils.rnn.invert_permutation(packed.sorted_indices)
        assert isinstance(packed, lib.nn.utils.rnn.PackedSequence)
        res.append([padded.numpy(), packed.data.numpy(), packed.batch_sizes.numpy(), packed.sorted_indices.numpy(),
                    inv.numpy()] + [b.numpy() for b in back] + [u.numpy() for u in unpadded])
    for r, m in zip(*res):
        np.testing.assert_array_equal(m, r)


def test_sorted_lengths_are_enforced_like_pytorch():
    for lib in (real, mt):
        with pytest.raises(RuntimeError):
            lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(X), [2, 6, 4, 3])
