"""``torch.distributed._tensor``: PyTorch's older name of ``torch.distributed.tensor``."""

from ..device_mesh import DeviceMesh, init_device_mesh
from ..tensor import DTensor, Partial, Placement, Replicate, Shard, distribute_tensor, empty, full, ones, zeros

__all__ = ["DTensor", "distribute_tensor", "Shard", "Replicate", "Partial", "Placement", "ones", "empty", "full",
           "zeros", "DeviceMesh", "init_device_mesh"]
