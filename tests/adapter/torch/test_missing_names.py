"""Every PyTorch name msnb lacks, in every namespace, raises msnb's 'not supported
by msnb yet' error (an AttributeError, so ``hasattr`` is False), never a bare one."""

import importlib

import pytest

import msnb.adapter.torch as mt
from msnb.adapter.torch import _api_names
from msnb.adapter.torch._missing import NotSupportedError

#: every PyTorch namespace whose public names _api_names lists, as msnb's adapter module
def _adapter_modules():
    found = {}
    for ns in _api_names.MODULE_NAMES:
        try:
            found[ns] = importlib.import_module("msnb.adapter." + ns)
        except ModuleNotFoundError:  # a whole namespace msnb lacks: its parent says so (tested below)
            continue
    return found


NAMESPACES = _adapter_modules()


@pytest.mark.parametrize("ns", sorted(NAMESPACES))
def test_each_missing_pytorch_name_says_not_supported(ns):
    mod = NAMESPACES[ns]
    for name in _api_names.MODULE_NAMES[ns]:
        try:
            getattr(mod, name)
        except NotSupportedError as e:
            assert f"{ns}.{name} is not supported by msnb yet" in str(e)
        except AttributeError as e:  # pragma: no cover - the failure being tested for
            raise AssertionError(f"{ns}.{name}: bare AttributeError {e}") from None
        except ImportError:
            continue  # lazily imported submodules that other helpers own


def test_missing_tensor_methods_say_not_supported():
    x = mt.ones(2, 2)
    for name in sorted(_api_names.TENSOR_METHODS):
        try:
            getattr(x, name)
        except NotSupportedError as e:
            assert f"torch.Tensor.{name} is not supported" in str(e)
        except AttributeError as e:  # pragma: no cover
            raise AssertionError(f"Tensor.{name}: bare AttributeError {e}") from None
        except Exception:  # noqa: BLE001 - a property that refuses this tensor (e.g. sparse-only): not missing
            continue
    assert not hasattr(x, "pin_memory_foo")


def test_names_pytorch_lacks_too_stay_plain_attribute_errors():
    with pytest.raises(AttributeError) as e:
        mt.no_such_name_anywhere  # noqa: B018
    assert not isinstance(e.value, NotSupportedError)
    with pytest.raises(AttributeError):
        mt.ones(2).no_such_method  # noqa: B018


def test_missing_pytorch_submodules_say_not_supported():
    """``torch.distributed.elastic``, ``torch.fx``: a submodule PyTorch has and msnb
    lacks is named with the support-list hint, by attribute and by import."""
    from msnb.runtime.importer import ImportScope

    checked = 0
    for full in sorted(_api_names.SUBMODULES):
        parent, _, name = full.rpartition(".")
        try:
            mod = importlib.import_module("msnb.adapter." + parent)
        except ImportError:
            continue  # its parent is missing too: reported there
        try:
            getattr(mod, name)
        except NotSupportedError as e:
            assert f"{full} is not supported by msnb yet" in str(e)
            checked += 1
        except AttributeError as e:  # pragma: no cover - the failure being tested for
            raise AssertionError(f"{full}: bare AttributeError {e}") from None
        except ImportError as e:  # an adapter module whose optional dependency is absent ...
            # ... but never msnb looking for a subpackage of a plain module (torch.accelerator.graphs)
            assert "msnb.adapter" not in str(e), f"{full}: {type(e).__name__} {e}"
            continue
    assert checked > 100
    with ImportScope():
        with pytest.raises(ModuleNotFoundError, match=r"torch\.distributed\.elastic is not supported by msnb yet"):
            importlib.import_module("torch.distributed.elastic")
        with pytest.raises(ModuleNotFoundError, match="No module named 'torch.no_such_module'"):
            importlib.import_module("torch.no_such_module")


def test_adapter_subpackages_load_on_first_attribute_use():
    import sys

    sys.modules.pop("msnb.adapter.torch.utils.tensorboard", None)
    assert mt.utils.tensorboard.SummaryWriter.__module__.startswith("msnb.adapter.torch.utils.tensorboard")
