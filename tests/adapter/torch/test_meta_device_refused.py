"""``device="meta"`` (PyTorch's shape-only tensors) is refused with msnb's
NotSupportedError naming the use, in every spelling a program reaches it by: sized
factories, ``*_like``, ``tensor``/``arange``/``full``/``randint``, layer constructors (by
keyword and by position), ``Tensor.to``, and ``torch.device("meta")`` as a block's
default device.  msnb has no data-less tensors, and the CPU tensor it made before
allocated what the program meant never to allocate (the shapes tutorial asks for 48 TiB:
this test would not finish if that were tried).  Other devices still map to msnb's."""

from __future__ import annotations

import pytest

import msnb.adapter.torch as mt
from msnb.adapter.torch._missing import NotSupportedError

HUGE = (2 ** 10, 3, 2 ** 16, 2 ** 16)
SPELLINGS = {
    "rand": lambda: mt.rand(*HUGE, device="meta"),
    "randn size=": lambda: mt.randn(size=HUGE, device=mt.device("meta")),
    "zeros": lambda: mt.zeros(HUGE, device="meta"),
    "empty": lambda: mt.empty(*HUGE, device="meta:0"),
    "full": lambda: mt.full(HUGE, 1.0, device="meta"),
    "randint": lambda: mt.randint(0, 5, HUGE, device="meta"),
    "tensor": lambda: mt.tensor([1.0, 2.0], device="meta"),
    "arange": lambda: mt.arange(10, device="meta"),
    "empty_like": lambda: mt.empty_like(mt.zeros(2), device="meta"),
    "randn_like": lambda: mt.randn_like(mt.zeros(2), device="meta"),
    "Conv2d keyword": lambda: mt.nn.Conv2d(3, 5, 2, device="meta"),
    "Linear positional": lambda: mt.nn.Linear(2, 3, True, "meta"),
    "Tensor.to": lambda: mt.zeros(3).to("meta"),
    "Tensor.to device=": lambda: mt.zeros(3).to(device=mt.device("meta")),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_meta_device_is_refused(name):
    with pytest.raises(NotSupportedError, match="meta device"):
        SPELLINGS[name]()


def test_meta_default_device_block_is_refused():
    with pytest.raises(NotSupportedError, match=r"torch.device\('meta'\)"):
        with mt.device("meta"):
            mt.nn.Linear(4, 4)


def test_layer_names_itself_and_other_devices_still_work():
    with pytest.raises(NotSupportedError, match=r"torch.nn.Conv2d\(device='meta'\)"):
        mt.nn.Conv2d(3, 5, 2, device="meta")
    assert tuple(mt.nn.Linear(2, 3, device="cpu").weight.shape) == (3, 2)
    assert tuple(mt.zeros(2, device="cuda").to("cpu").shape) == (2,)
    with mt.device("cpu"):
        assert tuple(mt.ones(2, 2).shape) == (2, 2)
