"""Every PyTorch name msnb lacks, in every namespace, raises msnb's 'not supported
by msnb yet' error (an AttributeError, so ``hasattr`` is False), never a bare one."""

import pytest

import msnb.adapter.torch as mt
from msnb.adapter.torch import _api_names
from msnb.adapter.torch._missing import NotSupportedError

NAMESPACES = {"torch": mt, "torch.nn": mt.nn, "torch.nn.functional": mt.nn.functional, "torch.nn.init": mt.nn.init,
              "torch.nn.utils": mt.nn.utils, "torch.optim": mt.optim, "torch.optim.lr_scheduler": mt.optim.lr_scheduler,
              "torch.autograd": mt.autograd, "torch.amp": mt.amp}


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
