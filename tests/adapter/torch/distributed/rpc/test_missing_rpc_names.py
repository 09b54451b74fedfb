"""Every public name of PyTorch's RPC namespaces that msnb lacks raises msnb's
"not supported by msnb yet" error (the namespaces ``_api_names`` does not list)."""

from __future__ import annotations

import importlib

import pytest

from msnb.adapter.torch._missing import NotSupportedError

NAMESPACES = ("torch.futures", "torch.distributed.rpc", "torch.distributed.rpc.functions",
              "torch.distributed.autograd", "torch.distributed.optim", "torch.distributed.nn")
#: what PyTorch's modules import for themselves (not API)
IMPORTED = {"torch", "dist", "os", "threading", "numbers", "logging", "warnings", "functools", "urlparse",
            "timedelta", "Generator", "Store", "logger", "Any", "TYPE_CHECKING", "annotations", "dist_autograd",
            "ReduceOp", "group", "cast", "Generic", "TypeVar", "T", "S", "Callable", "Optional", "Union", "List"}


@pytest.mark.parametrize("ns", NAMESPACES)
def test_pytorch_names_msnb_lacks_say_not_supported(ns):
    real = importlib.import_module(ns)
    ours = importlib.import_module("msnb.adapter." + ns)
    names = set(getattr(real, "__all__", ())) | {n for n in dir(real) if not n.startswith("_")}
    lacking = []
    for name in sorted(names - IMPORTED):
        if not hasattr(real, name) or isinstance(getattr(real, name), type(real)):
            continue  # listed in __all__ but absent in PyTorch too, or a submodule (test_missing_names checks those)
        try:
            getattr(ours, name)
        except NotSupportedError as e:
            assert f"{ns}.{name} is not supported by msnb yet" in str(e)
            lacking.append(name)
        except AttributeError as e:  # pragma: no cover - the failure being tested for
            raise AssertionError(f"{ns}.{name}: bare AttributeError {e}") from None
    with pytest.raises(AttributeError) as e:
        getattr(ours, "no_such_name_anywhere")
    assert not isinstance(e.value, NotSupportedError)
