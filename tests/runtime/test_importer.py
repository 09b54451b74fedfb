"""ImportScope: aliased names resolve to the adapter only inside the scope."""

import importlib
import sys
import types

import pytest

from msnb.runtime.importer import ImportScope, is_adapter_object


def test_aliases_resolve_to_adapter_modules():
    import importlib

    with ImportScope():
        names = {
            alias: importlib.import_module(alias).__name__
            for alias in (
                "torch",
                "torch.nn",
                "torch.nn.functional",
                "torch.utils.data",
                "torchvision",
                "torchvision.datasets",
                "torchvision.transforms",
                "msadapter.pytorch",
                "msadapter.pytorch.utils.data",
                "msadapter.torchvision",
                "mindtorch.torch",
            )
        }
    assert all(name.startswith("msnb.adapter.") for name in names.values()), names
    assert names["torch"] == "msnb.adapter.torch"
    assert names["msadapter.pytorch"] == "msnb.adapter.torch"


def test_sys_modules_restored_even_after_keyboard_interrupt(monkeypatch):
    sentinel = types.ModuleType("torch")
    monkeypatch.setitem(sys.modules, "torch", sentinel)
    with pytest.raises(KeyboardInterrupt):
        with ImportScope():
            import torch  # noqa: F401

            assert sys.modules["torch"].__name__ == "msnb.adapter.torch"
            import msadapter.pytorch  # noqa: F401

            raise KeyboardInterrupt
    assert sys.modules["torch"] is sentinel
    assert "msadapter" not in sys.modules and "msadapter.pytorch" not in sys.modules
    assert not any(type(f).__name__ == "AdapterFinder" for f in sys.meta_path)


def test_missing_adapter_module_names_the_user_import():
    with ImportScope(), pytest.raises(ModuleNotFoundError, match="torch.no_such_module"):
        import torch.no_such_module  # noqa: F401


def test_unrelated_imports_are_untouched():
    with ImportScope():
        import json

    assert json.__name__ == "json"


def test_is_adapter_object():
    import msnb.adapter

    assert not is_adapter_object(msnb.adapter)  # the package itself is not an alias target
    assert not is_adapter_object(sys) and not is_adapter_object(3)
    fn = lambda: None  # noqa: E731
    fn.__module__ = "msnb.adapter.torch"
    assert is_adapter_object(fn)


def test_an_aliased_import_keeps_the_adapter_modules_own_spec():
    """importlib gives a module the alias's spec (``torch.nn.functional``); the
    adapter puts its own back, so imports inside its functions resolve without
    an ImportWarning (``__package__ != __spec__.parent``; sdpa imports lazily)."""
    import warnings

    with ImportScope():
        F = importlib.import_module("torch.nn.functional")
        torch = importlib.import_module("torch")
        assert F.__spec__.name == F.__name__ == "msnb.adapter.torch.nn.functional"
        x = torch.ones(1, 1, 2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ImportWarning)
            F.scaled_dot_product_attention(x, x, x)
