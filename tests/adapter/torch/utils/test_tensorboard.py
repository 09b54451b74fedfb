"""``SummaryWriter`` writes the same events as PyTorch's: both write into their
own folders, TensorBoard's own reader reads both back, and the scalars,
histograms, images and text agree."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import msnb.adapter.torch as mt
from msnb.adapter.torch.utils.tensorboard import SummaryWriter

VALUES = np.random.default_rng(0).standard_normal(500).astype(np.float32)
IMG = np.random.default_rng(1).random((3, 8, 6)).astype(np.float32)


def _write(lib, writer_cls, logdir):
    with writer_cls(str(logdir)) as w:
        for step in range(3):
            w.add_scalar("loss", lib.tensor(1.0 / (step + 1)), step)
        w.add_histogram("weights", lib.tensor(VALUES), 0)
        w.add_histogram("weights_few_bins", lib.tensor(VALUES), 0, bins="auto", max_bins=7)
        w.add_image("img", lib.tensor(IMG), 0)
        w.add_images("batch", lib.tensor(np.stack([IMG, IMG[::-1].copy()])), 0)
        w.add_text("note", "hello msnb", 0)
    acc = EventAccumulator(str(logdir), size_guidance={"images": 0, "histograms": 0, "scalars": 0, "tensors": 0})
    acc.Reload()
    return acc


def test_events_match_pytorchs(tmp_path):
    from torch.utils.tensorboard import SummaryWriter as RealWriter
    ours = _write(mt, SummaryWriter, tmp_path / "msnb")
    theirs = _write(real, RealWriter, tmp_path / "torch")
    assert [(e.step, e.value) for e in ours.Scalars("loss")] == [(e.step, e.value) for e in theirs.Scalars("loss")]
    for tag in ("weights", "weights_few_bins"):
        a, b = ours.Histograms(tag)[0].histogram_value, theirs.Histograms(tag)[0].histogram_value
        assert a.num == b.num and a.bucket == b.bucket, tag
        np.testing.assert_allclose(a.bucket_limit, b.bucket_limit, rtol=1e-9)
        np.testing.assert_allclose([a.min, a.max, a.sum, a.sum_squares], [b.min, b.max, b.sum, b.sum_squares],
                                   rtol=1e-5)
    for tag in ("img", "batch"):
        a, b = ours.Images(tag)[0], theirs.Images(tag)[0]
        assert (a.width, a.height) == (b.width, b.height), tag
        from PIL import Image
        import io
        pa = np.asarray(Image.open(io.BytesIO(a.encoded_image_string)).convert("RGB"))
        pb = np.asarray(Image.open(io.BytesIO(b.encoded_image_string)).convert("RGB"))
        np.testing.assert_array_equal(pa, pb)
    assert ours.Tensors("note/text_summary")[0].tensor_proto.string_val == [b"hello msnb"]


def test_add_graph_says_it_is_unsupported(tmp_path):
    with SummaryWriter(str(tmp_path)) as w, pytest.raises(NotImplementedError, match="not supported by msnb yet"):
        w.add_graph(mt.nn.Linear(2, 2), mt.zeros(1, 2))


def test_non_scalar_is_refused(tmp_path):
    with SummaryWriter(str(tmp_path)) as w, pytest.raises(ValueError):
        w.add_scalar("x", mt.zeros(3), 0)
