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


def _generator():
    """tools/gen_torch_api_names.py, whose rule tells a public name of PyTorch's own (not
    ``typing.Any`` or ``torch`` re-imported)."""
    import importlib.util
    from pathlib import Path
    tool = Path(__file__).resolve().parents[3] / "tools" / "gen_torch_api_names.py"
    spec = importlib.util.spec_from_file_location("gen_torch_api_names", tool)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


_torchs_own = _generator().torchs_own


@pytest.mark.parametrize("ns", sorted(NAMESPACES))
def test_every_name_real_torch_shows_exists_or_says_not_supported(ns):
    """Enumerated from real PyTorch's ``dir()`` (not from msnb's own list): each public name of
    PyTorch's own in the namespace exists on msnb or raises msnb's NotSupportedError."""
    real_mod = importlib.import_module(ns)
    bare = []
    for name in dir(real_mod):
        if not _torchs_own(real_mod, name):
            continue
        try:
            getattr(NAMESPACES[ns], name)
        except NotSupportedError:
            continue
        except AttributeError as e:
            bare.append(f"{name}: {e}")
        except Exception:  # noqa: BLE001 - exists but refuses to be read here (an optional dependency)
            continue
    assert not bare, f"{ns}: bare AttributeError for {bare[:10]}"


def test_not_supported_error_is_an_attribute_error():
    """``hasattr`` stays False for a name msnb lacks (NotSupportedError subclasses AttributeError)."""
    assert issubclass(NotSupportedError, AttributeError)
    assert not hasattr(mt.sparse, "sampled_addmm") or callable(mt.sparse.sampled_addmm)
    # a name PyTorch's dir() shows outside its __all__
    with pytest.raises(NotSupportedError, match=r"torch\.sparse\.spsolve is not supported by msnb yet"):
        mt.sparse.spsolve  # noqa: B018
