"""``nn.DataParallel`` on msnb's one device: same outputs as the module,
PyTorch's ``module.`` state-dict keys; devices that do not exist are refused;
``DistributedDataParallel`` refuses, as PyTorch does, without a process group
(it is exercised on 2 workers in tests/adapter/torch/distributed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

import msnb.adapter.torch as mt


def test_data_parallel_runs_module_with_pytorch_keys():
    net = mt.nn.Linear(3, 2)
    dp = mt.nn.DataParallel(net)
    x = mt.randn(4, 3)
    np.testing.assert_array_equal(dp(x).detach().numpy(), net(x).detach().numpy())
    assert dp.module is net
    assert list(dp.state_dict()) == list(real.nn.DataParallel(real.nn.Linear(3, 2)).state_dict())
    out = mt.nn.parallel.data_parallel(net, x)
    np.testing.assert_array_equal(out.detach().numpy(), net(x).detach().numpy())


def test_data_parallel_refuses_devices_it_does_not_have():
    with pytest.raises(RuntimeError, match="one device"):
        mt.nn.DataParallel(mt.nn.Linear(3, 2), device_ids=[0, 1])


def test_ddp_without_a_process_group_refuses_as_pytorch():
    from msnb.adapter.torch.nn.parallel import DistributedDataParallel
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(mt.nn.Linear(3, 2))
