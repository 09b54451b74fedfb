"""msnb implementation of ``torch.distributed.nn``: ``RemoteModule``.

``RemoteModule("ps/cpu", nn.EmbeddingBag, args=(10, 3))`` builds the module on
worker ``ps`` (an ``rpc.remote`` call); ``forward`` runs it there
(``rpc_sync``), ``forward_async`` returns a ``torch.futures.Future``, and
``remote_parameters()`` gives RRefs to its parameters for
``DistributedOptimizer``.  Inside a distributed autograd context, the
gradients flow back to the remote module's parameters.  As in PyTorch, the
``nn.Module`` methods that would act on local state (``parameters``,
``state_dict``, ``to``, ``train`` ...) raise ``ValueError``.
"""

from __future__ import annotations

from ... import nn as _nn

__all__ = ["RemoteModule"]

_REFUSED = ("register_buffer", "register_parameter", "add_module", "apply", "cuda", "ipu", "xpu", "cpu", "type",
            "float", "double", "half", "bfloat16", "to", "register_backward_hook", "register_forward_pre_hook",
            "register_forward_hook", "state_dict", "load_state_dict", "parameters", "named_parameters", "buffers",
            "named_buffers", "children", "named_children", "modules", "named_modules", "requires_grad_", "zero_grad", "share_memory", "extra_repr")


def _parse_device(remote_device: str):
    if not isinstance(remote_device, str) or "/" not in remote_device:
        raise ValueError(f"Could not parse remote_device: {remote_device}. The valid format is "
                         "'<workername>/<device>' or 'rank:<rank>/<device>'")
    worker, device = remote_device.split("/", 1)
    if worker.startswith("rank:"):
        worker = int(worker[len("rank:"):])
    return worker, device


def _build(module_cls, args, kwargs):
    return module_cls(*args, **kwargs)


def _forward(module_rref, args, kwargs):
    return module_rref.local_value()(*args, **kwargs)


def _param_rrefs(module_rref, recurse):
    from .. import rpc
    return [rpc.RRef(p) for p in module_rref.local_value().parameters(recurse)]


class RemoteModule(_nn.Module):
    """msnb implementation of ``torch.distributed.nn.RemoteModule`` (CPU: the device part is kept, tensors
    stay in host memory)."""

    def __init__(self, remote_device: str, module_cls, args=None, kwargs=None):
        super().__init__()
        from .. import rpc
        rpc._agent.current()  # RemoteModule only works in RPC
        self.on, self.device = _parse_device(remote_device)
        self.module_rref = rpc.remote(self.on, _build, args=(module_cls, tuple(args or ()), dict(kwargs or {})))
        self.module_rref._get_future().wait()  # the owner has it (a failing constructor raises at forward)

    def forward(self, *args, **kwargs):
        from .. import rpc
        return rpc.rpc_sync(self.on, _forward, args=(self.module_rref, args, kwargs))

    def forward_async(self, *args, **kwargs):
        from .. import rpc
        return rpc.rpc_async(self.on, _forward, args=(self.module_rref, args, kwargs))

    def remote_parameters(self, recurse: bool = True) -> list:
        """RRefs to the remote module's parameters (for ``DistributedOptimizer``)."""
        from .. import rpc
        return rpc.rpc_sync(self.on, _param_rrefs, args=(self.module_rref, recurse))

    def get_module_rref(self):
        return self.module_rref

    def train(self, mode: bool = True):
        """Sets the remote module's mode (PyTorch returns a pickled copy of the remote module; msnb ``self``)."""
        self.module_rref.rpc_sync().train(mode)
        return self

    def eval(self):
        return self.train(False)


def _refuse(name):
    hint = ". Please use ``remote_parameters`` instead." if name == "parameters" else ""

    def method(self, *args, **kwargs):
        raise ValueError(f"Method ``{name}`` not supported for RemoteModule{hint}")

    method.__name__ = name
    return method


for _name in _REFUSED:
    setattr(RemoteModule, _name, _refuse(_name))

from ..rpc._names import module_getattr_with as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributed.nn")
