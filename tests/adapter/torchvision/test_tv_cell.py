"""``import torchvision`` inside a ``%%torch_on_ascend`` cell resolves to msnb's adapter.

``--no-analyze`` because the analyzer's support registry (generated from
``__all__`` elsewhere) may not list torchvision names yet."""

from __future__ import annotations


def test_cell_uses_adapter_torchvision(run, ip, tmp_path):
    run(f"""%%torch_on_ascend --no-analyze
import torch
import torchvision
import torchvision.transforms as transforms
from torchvision.transforms import InterpolationMode
ds = torchvision.datasets.FakeData(size=2, image_size=(3, 8, 8), transform=transforms.Compose([
    transforms.Resize((16, 16), interpolation=InterpolationMode.BICUBIC),
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.247, 0.2435, 0.2616])]))
x, y = ds[0]
tv_name = torchvision.__name__
shape = tuple(x.shape)
is_tensor = isinstance(x, torch.Tensor)
""")
    assert ip.user_ns["tv_name"] == "msnb.adapter.torchvision"
    assert ip.user_ns["shape"] == (3, 16, 16)
    assert ip.user_ns["is_tensor"] is True
