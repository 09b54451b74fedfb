"""``SummaryWriter``: scalars, histograms, images, figures and text as
TensorBoard events (the summary formats PyTorch's writer produces)."""

from __future__ import annotations

import io
import os
import socket
import time
from datetime import datetime

import numpy as np
from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.summary.writer.event_file_writer import EventFileWriter

__all__ = ["SummaryWriter"]

_SUPPORT = "see the support list: python -m msnb.adapter.support --markdown"


def _np(x):
    if hasattr(x, "detach"):
        x = x.detach()
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    return np.asarray(x)


def _scalar(x) -> float:
    a = _np(x)
    if a.size != 1:
        raise ValueError(f"scalar should be 0D, got a value of shape {a.shape}")
    return float(a.reshape(()))


def _tensorflow_bins():
    """TensorFlow's default histogram buckets (PyTorch's ``bins="tensorflow"``):
    limits growing by 10% from 1e-12 to 1e20, mirrored for negatives, and 0."""
    pos = 1e-12 * 1.1 ** np.arange(int(np.ceil(np.log(1e32) / np.log(1.1))))
    pos = pos[pos < 1e20]
    return np.concatenate([-pos[::-1], [0.0], pos])


def _histogram(values, bins, max_bins=None) -> HistogramProto:
    """The histogram proto PyTorch's writer makes: bins merged down to
    ``max_bins``, then trimmed to the bins between the first and last non-empty
    one, with one empty bin on the left (TensorBoard shows right limits only)."""
    a = _np(values).astype(np.float64).reshape(-1)
    if a.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(a, bins=_tensorflow_bins() if isinstance(bins, str) and bins == "tensorflow"
                                  else bins)
    if max_bins is not None and counts.size > max_bins:
        sub = counts.size // max_bins
        if counts.size % sub:
            counts = np.pad(counts, (0, sub - counts.size % sub))
        counts = counts.reshape(-1, sub).sum(-1)
        limits = np.concatenate([limits[:-1:sub][:counts.size], limits[-1:]])
    nonzero = np.flatnonzero(counts > 0)
    first, last = int(nonzero[0]), int(nonzero[-1])
    counts = counts[first - 1:last + 1] if first > 0 else np.concatenate([[0], counts[:last + 1]])
    limits = limits[first:last + 2]
    return HistogramProto(min=float(a.min()), max=float(a.max()), num=int(a.size), sum=float(a.sum()),
                          sum_squares=float(a.dot(a)), bucket_limit=limits.tolist(),
                          bucket=counts.astype(np.float64).tolist())


def _to_hwc_uint8(img, dataformats):
    from PIL import Image
    a = _np(img)
    fmt = dataformats.upper()
    if fmt == "CHW":
        a = a.transpose(1, 2, 0)
    elif fmt == "HW":
        a = a[:, :, None]
    elif fmt != "HWC":
        raise ValueError(f"unsupported dataformats {dataformats!r} for one image (CHW, HWC, HW)")
    if a.shape[2] == 1:
        a = np.repeat(a, 3, axis=2)
    if a.dtype != np.uint8:  # as PyTorch: non-uint8 images are in [0, 1], scaled by 255 and clipped
        a = np.clip(a * 255, 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="PNG")
    return Summary.Image(height=a.shape[0], width=a.shape[1], colorspace=a.shape[2],
                         encoded_image_string=buf.getvalue())


class SummaryWriter:
    """msnb implementation of ``torch.utils.tensorboard.SummaryWriter``."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self._writer = EventFileWriter(self.log_dir, max_queue, flush_secs, filename_suffix)
        self._closed = False

    def get_logdir(self):
        return self.log_dir

    def _add(self, summary, global_step, walltime):
        if self._closed:
            raise RuntimeError("SummaryWriter is closed")
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        self._writer.add_event(event)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._add(Summary(value=[Summary.Value(tag=tag, simple_value=_scalar(scalar_value))]), global_step,
                  walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """As PyTorch: one sub-run folder per key (``log_dir/main_tag_key``)."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            sub = os.path.join(self.log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            writers = self.__dict__.setdefault("_sub", {})
            if sub not in writers:
                writers[sub] = EventFileWriter(sub)
            event = Event(summary=Summary(value=[Summary.Value(tag=main_tag, simple_value=_scalar(value))]),
                          wall_time=walltime)
            if global_step is not None:
                event.step = int(global_step)
            writers[sub].add_event(event)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        self._add(Summary(value=[Summary.Value(tag=tag, histo=_histogram(values, bins, max_bins))]),
                  global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._add(Summary(value=[Summary.Value(tag=tag, image=_to_hwc_uint8(img_tensor, dataformats))]),
                  global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch as one grid image, as PyTorch does."""
        from msnb.adapter.torchvision.utils import _make_grid_np
        a = _np(img_tensor)
        if dataformats.upper() == "NHWC":
            a = a.transpose(0, 3, 1, 2)
        elif dataformats.upper() != "NCHW":
            raise ValueError(f"unsupported dataformats {dataformats!r} for images (NCHW, NHWC)")
        nrow = int(np.ceil(np.sqrt(a.shape[0])))
        grid = _make_grid_np(a.astype(np.float32), nrow, 0, False, None, False, 0.0)
        self.add_image(tag, grid, global_step, walltime, dataformats="CHW")

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        figures = figure if isinstance(figure, list) else [figure]
        for fig in figures:
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            from PIL import Image
            img = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
            self.add_image(tag, img, global_step, walltime, dataformats="HWC")
            if close:
                import matplotlib.pyplot as plt
                plt.close(fig)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
        tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                             tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
        self._add(Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)]),
                  global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError(f"torch.utils.tensorboard.SummaryWriter.add_graph is not supported by msnb yet "
                                  f"(it needs TorchScript tracing; {_SUPPORT})")

    def add_embedding(self, *args, **kwargs):
        raise NotImplementedError(f"torch.utils.tensorboard.SummaryWriter.add_embedding is not supported by msnb "
                                  f"yet ({_SUPPORT})")

    def flush(self):
        self._writer.flush()
        for w in self.__dict__.get("_sub", {}).values():
            w.flush()

    def close(self):
        if not self._closed:
            self.flush()
            self._writer.close()
            for w in self.__dict__.get("_sub", {}).values():
                w.close()
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
