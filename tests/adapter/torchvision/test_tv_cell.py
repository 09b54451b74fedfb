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


def test_cell_imports_torchvision_io_and_ops(run, ip, tmp_path):
    """``from torchvision.io import ...`` and ``import torchvision.ops`` resolve to msnb's modules in a cell:
    an image written with write_png reads back, and roi_pool runs on the tensors the cell made."""
    path = tmp_path / "img.png"
    run(f"""%%torch_on_ascend --no-analyze
import torch
import torchvision.ops
from torchvision.io import ImageReadMode, read_image, write_png
img = torch.arange(2 * 3 * 4, dtype=torch.uint8).reshape(1, 6, 4)
write_png(img, {str(path)!r})
back = read_image({str(path)!r}, ImageReadMode.RGB)
pooled = torchvision.ops.roi_pool(torch.arange(16.).reshape(1, 1, 4, 4),
                                  torch.tensor([[0., 0, 0, 20, 20], [0, 0, 10, 30, 30]]), (2, 2), 0.1)
ops_name = torchvision.ops.__name__
""")
    assert ip.user_ns["ops_name"] == "msnb.adapter.torchvision.ops"
    assert tuple(ip.user_ns["back"].shape) == (3, 6, 4)
    assert ip.user_ns["back"][1].tolist() == ip.user_ns["img"][0].tolist()
    assert ip.user_ns["pooled"].reshape(-1).tolist() == [5.0, 6.0, 9.0, 10.0, 9.0, 11.0, 13.0, 15.0]


def test_cell_runs_trivial_augment_wide_pipeline(run, ip):
    """The public notebooks' pipeline (``TrivialAugmentWide`` before ``ToTensor`` on PIL images, and
    ``torchvision.transforms.autoaugment``) runs in a cell on msnb's modules."""
    run("""%%torch_on_ascend --no-analyze
import torch
import torchvision
from torchvision import transforms
from torchvision.transforms.autoaugment import AutoAugmentPolicy
ds = torchvision.datasets.FakeData(size=2, image_size=(3, 16, 16), transform=transforms.Compose([
    transforms.Resize((12, 12)), transforms.TrivialAugmentWide(num_magnitude_bins=31),
    transforms.AutoAugment(AutoAugmentPolicy.CIFAR10), transforms.ToTensor()]))
torch.manual_seed(0)
x, y = ds[0]
shape = tuple(x.shape)
aa_module = transforms.AutoAugment.__module__
""")
    assert ip.user_ns["shape"] == (3, 12, 12)
    assert ip.user_ns["aa_module"] == "msnb.adapter.torchvision.transforms.autoaugment"
