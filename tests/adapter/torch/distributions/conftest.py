"""Shared set-up of the torch.distributions differential tests."""

import pytest
import torch as real


@pytest.fixture(autouse=True)
def pytorch_default_validation():
    """Importing real ``torch._dynamo`` (another file's torch.compile case, in
    the same worker) turns real PyTorch's default argument validation off for
    the whole process; these cases compare with PyTorch's default (on)."""
    base = real.distributions.Distribution
    before = base._validate_args
    base.set_default_validate_args(True)
    yield
    base.set_default_validate_args(before)
