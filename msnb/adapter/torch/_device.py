"""``torch.device`` and the CUDA/accelerator spellings, mapped to MindSpore's
active device.  Code written for CUDA (``.cuda()``, ``.to("cuda")``,
``.to(0)``, ``torch.cuda.is_available()``) runs on whatever device MindSpore
uses -- the Ascend NPU when there is one, else the CPU -- and never fails
for naming CUDA."""

from __future__ import annotations

from .._ms import device_target

__all__ = ["device", "active_device", "parse_device", "get_default_device", "refuse_meta"]


class device:  # noqa: N801 - torch's spelling
    """msnb implementation of ``torch.device``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):
            type, index = "cuda", type
        elif isinstance(type, str) and ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        if type not in ("cpu", "cuda", "npu", "meta", "mps", "xpu", "ascend"):
            raise RuntimeError(f"Expected one of cpu, cuda, npu, meta device type at start of device "
                               f"string: {type}")
        self.type = type
        self.index = index

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type + (f":{self.index}" if self.index is not None else "")

    def __eq__(self, other):
        # as in PyTorch, a device never equals a string
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        refuse_meta(self, "torch.device('meta') as the default device of a block")
        return self

    def __exit__(self, *exc):
        return False


def active_device() -> device:
    """The device tensors report: ``npu:0`` on Ascend, else ``cpu``."""
    return device("npu", 0) if device_target() == "Ascend" else device("cpu")


def get_default_device() -> device:
    """msnb implementation of ``torch.get_default_device``: the device new
    tensors are made on (msnb has one, the active device)."""
    return active_device()


_DEFAULT = [None]


def set_default_device(device) -> None:  # noqa: F811 - PyTorch's parameter name
    """msnb implementation of ``torch.set_default_device``: ``None``, ``"cpu"``,
    ``"cuda"``, ``"npu"`` ... are accepted (every device name maps to the active
    device, as ``.to("cuda")`` does); ``"meta"`` is refused."""
    d = parse_device(device)
    if d is not None and d.type == "meta":
        from ._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message("torch.set_default_device('meta')"))
    _DEFAULT[0] = d


def parse_device(d):
    """Accept anything PyTorch accepts as a device; all map to the active device."""
    if d is None:
        return None
    if isinstance(d, (device, str, int)):
        return device(d)
    raise TypeError(f"to() received an invalid device argument: {d!r}")


def refuse_meta(d, what="tensors made with device='meta'"):
    """PyTorch's ``meta`` device holds shapes and dtypes without data; msnb has no such tensors,
    and making a CPU tensor instead would allocate what the program meant never to allocate
    (``torch.rand(2**10, 3, 2**16, 2**16, device="meta")`` is 48 TiB): refused, naming the use."""
    if d is None:
        return
    if (isinstance(d, str) and d.partition(":")[0] == "meta") or (isinstance(d, device) and d.type == "meta"):
        from ._missing import NotSupportedError, not_supported_message
        raise NotSupportedError(not_supported_message(f"{what} (the meta device: shape-only tensors)"))
