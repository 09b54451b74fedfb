"""``torch.distributed.rpc`` on 2 workers started by ``torch.multiprocessing.spawn``,
msnb against real PyTorch 2.13 (TensorPipe) running the same program
(``rpc_program.py``): values, RRef facts, remote errors with their traceback
text, ``async_execution``, and a parameter-server training run with
distributed autograd and ``DistributedOptimizer`` giving PyTorch's losses.

Both programs run once per module, at the same time."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parents[4]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Real torch's spawn and msnb's spawn start 2 workers each, from this process, at the same time; the
    children import ``rpc_program`` with the library that ``MSNB_RPC_LIB`` names when they start."""
    import torch.multiprocessing as real_mp

    import msnb.adapter.torch.multiprocessing as msnb_mp

    out = tmp_path_factory.mktemp("rpc")
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(TESTS))  # children unpickle rpc_program.run by this module's name
        mp.setenv("GLOG_v", "3")
        from . import rpc_program
        running = {}
        for lib, spawn in (("torch", real_mp.spawn), ("msnb", msnb_mp.spawn)):
            mp.setenv("MSNB_RPC_LIB", lib)
            running[lib] = spawn(rpc_program.run, args=(2, str(out / f"{lib}.json"), _free_port()), nprocs=2,
                                 join=False)
        for ctx in running.values():
            while not ctx.join(timeout=600):
                pass
    return tuple(json.loads((out / f"{lib}.json").read_text()) for lib in ("torch", "msnb"))


@pytest.mark.parametrize("key", ["sync", "builtin", "async", "wait_all", "who", "rref", "local_value_elsewhere",
                                 "own_rref", "remote_to_here", "async_execution"])
def test_rpc_results_match_pytorch(results, key):
    real, msnb = results
    assert msnb[key] == real[key]


@pytest.mark.parametrize("key", ["sync_error", "async_error", "remote_error"])
def test_remote_errors_are_reraised_with_the_callee_traceback(results, key):
    """Same exception type; the message names the callee worker, the exception and the remote frame, as
    PyTorch's does."""
    real, msnb = results
    assert msnb[key][0] == real[key][0] == "ValueError"
    kind = key.split("_")[0]
    for message in (real[key][1], msnb[key][1]):
        assert "On WorkerInfo(id=1, name=ps):" in message
        assert f"ValueError('remote failure in {kind}')" in message
        assert "Traceback (most recent call last):" in message and ", in fails" in message
    assert msnb[key][1].count("On WorkerInfo") == 1  # not wrapped twice on its way back


def test_unknown_worker_error(results):
    real, msnb = results
    assert msnb["unknown_worker"] == real["unknown_worker"]


def test_parameter_server_training_gives_pytorchs_losses(results):
    """Local layer -> remote model on the ps -> local layer; dist_autograd.backward and
    DistributedOptimizer(SGD, momentum) over the ps's and the trainer's parameters."""
    real, msnb = results
    r, m = real["train"], msnb["train"]
    np.testing.assert_allclose(m["losses"], r["losses"], rtol=1e-5)
    assert m["losses"][-1] < m["losses"][0]
    # the trainer's first layer is trained too: its gradient came back across the ps
    np.testing.assert_allclose(m["pre_weight"], r["pre_weight"], rtol=1e-5, atol=1e-6)
    assert m["grads_seen"] == r["grads_seen"]  # get_gradients on the ps and on the trainer
    assert m["grad_untouched"] and r["grad_untouched"]  # .grad is not where distributed gradients go
    assert m["ps_calls"] == r["ps_calls"]


def test_remote_module_matches_pytorch(results):
    """RemoteModule: built on the ps, trained above through remote_parameters(); forward_async after
    training; nn.Module methods on local state refused with PyTorch's ValueError."""
    real, msnb = results
    r, m = real["train"], msnb["train"]
    np.testing.assert_allclose(m["mixed"], r["mixed"], rtol=1e-5, atol=1e-6)
    assert m["refused"] == r["refused"]
    assert m["refused"][0] == "ValueError" and "``parameters`` not supported for RemoteModule" in m["refused"][1]
    assert m["n_remote_params"] == r["n_remote_params"] == 2
