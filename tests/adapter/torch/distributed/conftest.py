"""Shared fixtures of the torch.distributed tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def world_of_one(monkeypatch):
    """A process group of this one process and its 1-D mesh (every collective returns its input)."""
    import msnb.adapter.torch.distributed as dist
    from msnb.adapter.torch.distributed.device_mesh import init_device_mesh
    for k in ("MS_ROLE", "MS_SCHED_PORT", "WORLD_SIZE", "RANK"):
        monkeypatch.delenv(k, raising=False)
    dist.init_process_group("gloo")
    yield init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
    if dist.is_initialized():
        dist.destroy_process_group()
