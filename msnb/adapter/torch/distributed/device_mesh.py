"""msnb implementation of ``torch.distributed.device_mesh``: ``DeviceMesh`` and ``init_device_mesh``.

A mesh is an n-dimensional array of global ranks.  Along each mesh dimension
the ranks that differ only in that coordinate form a process group (one
``new_group`` each, made by every rank in the same order, as PyTorch does),
so a collective "along dim i" runs on MindSpore's communication within that
group.  ``mesh["dp"]`` is the 1-D sub-mesh of this rank along ``dp``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DeviceMesh", "init_device_mesh"]


def _dist():
    from .. import distributed
    return distributed


class DeviceMesh:
    """msnb implementation of ``torch.distributed.device_mesh.DeviceMesh``."""

    def __init__(self, device_type, mesh, *, mesh_dim_names=None, backend_override=None, _init_backend=True,
                 _groups=None):
        dist = _dist()
        if not dist.is_initialized():
            dist.init_process_group()  # PyTorch's DeviceMesh starts the default group too
        arr = np.asarray(mesh.numpy() if hasattr(mesh, "numpy") else mesh, dtype=np.int64)
        if arr.ndim == 0:
            raise ValueError("DeviceMesh needs a mesh of at least one dimension")
        if mesh_dim_names is not None:
            mesh_dim_names = tuple(mesh_dim_names)
            if len(mesh_dim_names) != arr.ndim:
                raise RuntimeError(f"mesh_dim_names {mesh_dim_names} should have the same length as the mesh's "
                                   f"dimensions ({arr.ndim})")
            if len(set(mesh_dim_names)) != len(mesh_dim_names):
                raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated mesh_dim_name in "
                                   f"mesh_dim_names {mesh_dim_names}")
        if len(set(arr.reshape(-1).tolist())) != arr.size:
            raise RuntimeError(f"DeviceMesh cannot have duplicate values, but found {arr.tolist()}")
        self.device_type = str(device_type)
        self._mesh = arr
        self.mesh_dim_names = mesh_dim_names
        me = dist.get_rank()
        where = np.argwhere(arr == me)
        self._coord = tuple(int(c) for c in where[0]) if len(where) else None
        self._groups = list(_groups) if _groups is not None else self._make_groups()

    def _make_groups(self):
        """One group per mesh dimension: this rank's line of ranks along it (None when not in the mesh)."""
        dist = _dist()
        mine = []
        for d in range(self._mesh.ndim):
            lines = np.moveaxis(self._mesh, d, -1).reshape(-1, self._mesh.shape[d])
            found = None
            for line in lines:  # every rank creates every group, in the same order
                g = dist.new_group([int(r) for r in line])
                if self._coord is not None and dist.get_rank() in line.tolist():
                    found = g
            mine.append(found)
        return mine

    # --- shape and ranks ------------------------------------------------------------------
    @property
    def mesh(self):
        import msnb.adapter.torch as torch
        return torch.from_numpy(self._mesh.copy())

    @property
    def ndim(self) -> int:
        return self._mesh.ndim

    @property
    def shape(self) -> tuple:
        return tuple(self._mesh.shape)

    def size(self, mesh_dim=None) -> int:
        if mesh_dim is None:
            return int(self._mesh.size)
        return int(self._mesh.shape[self._dim(mesh_dim)])

    def _dim(self, mesh_dim) -> int:
        if isinstance(mesh_dim, str):
            if not self.mesh_dim_names or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available mesh dimensions are: "
                               f"mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        d = int(mesh_dim)
        if not -self.ndim <= d < self.ndim:
            raise IndexError(f"mesh_dim {mesh_dim} is out of range for a mesh of {self.ndim} dimensions")
        return d % self.ndim

    def get_rank(self) -> int:
        return _dist().get_rank()

    def get_coordinate(self):
        return list(self._coord) if self._coord is not None else None

    def _one_dim(self, mesh_dim) -> int:
        """``mesh_dim`` as an index; ``None`` only names the dimension of a 1-D mesh (PyTorch's rule)."""
        if mesh_dim is None:
            if self.ndim > 1:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions. Optional kwarg `mesh_dim` "
                                   "needs to be specified when device_mesh.ndim > 1.")
            return 0
        return self._dim(mesh_dim)

    def get_local_rank(self, mesh_dim=None) -> int:
        return self._coord[self._one_dim(mesh_dim)]

    def get_group(self, mesh_dim=None):
        return self._groups[self._one_dim(mesh_dim)]

    def get_all_groups(self) -> list:
        return list(self._groups)

    def __getitem__(self, names):
        """The sub-mesh of this rank along one named dimension (``mesh["dp"]``)."""
        if isinstance(names, tuple) and len(names) == 1:
            names = names[0]
        if not isinstance(names, str):
            if isinstance(names, tuple) and tuple(names) == self.mesh_dim_names:
                return self
            raise NotImplementedError("slicing a DeviceMesh by several dimensions (mesh['dp', 'tp']) is not "
                                      "supported by msnb yet (see the support list: python -m msnb.adapter."
                                      "support --markdown)")
        if not self.mesh_dim_names:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        d = self._dim(names)
        index = tuple(slice(None) if i == d else c for i, c in enumerate(self._coord))
        return DeviceMesh(self.device_type, self._mesh[index], mesh_dim_names=(names,), _groups=[self._groups[d]])

    def __eq__(self, other):
        return (isinstance(other, DeviceMesh) and self.device_type == other.device_type
                and np.array_equal(self._mesh, other._mesh) and self.mesh_dim_names == other.mesh_dim_names)

    def __hash__(self):
        return hash((self.device_type, self._mesh.tobytes(), self._mesh.shape, self.mesh_dim_names))

    def __repr__(self):
        names = f", mesh_dim_names={self.mesh_dim_names}" if self.mesh_dim_names else ""
        return f"DeviceMesh('{self.device_type}', {self._mesh.tolist()}{names})"


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """msnb implementation of ``torch.distributed.device_mesh.init_device_mesh``: ranks 0..n-1 in row-major order."""
    dist = _dist()
    if not isinstance(device_type, str) or device_type.startswith(("cuda:", "cpu:")):
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. If you maintained a "
                           "'torch.device' object, it's recommended to pass in 'device.type'.")
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if mesh_dim_names is not None and len(mesh_dim_names) != len(mesh_shape):
        raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                           f"{len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}.")
    if not dist.is_initialized():
        dist.init_process_group()
    world = dist.get_world_size()
    if math.prod(mesh_shape) != world:
        raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but found "
                           f"{math.prod(mesh_shape)} ranks!" if math.prod(mesh_shape) > world else
                           f"init_device_mesh: mesh_shape {mesh_shape} holds {math.prod(mesh_shape)} ranks but the "
                           f"world has {world} (msnb builds meshes over the whole world)")
    return DeviceMesh(device_type, np.arange(world).reshape(mesh_shape), mesh_dim_names=mesh_dim_names)
