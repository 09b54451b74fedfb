"""msnb's adapter runtime: PyTorch and torchvision APIs implemented on MindSpore.

The packages below mirror the layout of the libraries they stand in for:
``msnb.adapter.torch`` for ``torch`` and ``msnb.adapter.torchvision`` for
``torchvision``.  Nothing here patches ``mindspore`` itself.
"""

__all__ = ["ALIASES", "adapter_module_for"]

#: Top-level module names a ``%%torch_on_ascend`` cell resolves to the adapter.
#: Keys are the names user code imports; values are the adapter packages.
ALIASES = {
    "torch": "msnb.adapter.torch",
    "torchvision": "msnb.adapter.torchvision",
    "msadapter.pytorch": "msnb.adapter.torch",
    "msadapter.torchvision": "msnb.adapter.torchvision",
    "mindtorch.torch": "msnb.adapter.torch",
    "mindtorch.torchvision": "msnb.adapter.torchvision",
}


def adapter_module_for(fullname: str) -> str | None:
    """Return the adapter module name that stands in for ``fullname``, or None.

    ``torch.nn.functional`` maps to ``msnb.adapter.torch.nn.functional``;
    ``msadapter.pytorch.utils.data`` to ``msnb.adapter.torch.utils.data``.
    Longest alias wins, so ``msadapter.pytorch`` beats a bare ``msadapter``.
    """
    for alias in sorted(ALIASES, key=len, reverse=True):
        if fullname == alias or fullname.startswith(alias + "."):
            return ALIASES[alias] + fullname[len(alias):]
    return None
