"""``init_rpc``'s rendezvous fails with a clear error, and leaves nothing behind, when the other
workers never come (rank 0) or the master is not there (another rank); ``env://`` needs
PyTorch's variables."""

from __future__ import annotations

import socket

import pytest

import msnb.adapter.torch.distributed.rpc as rpc


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _options(port):
    return rpc.TensorPipeRpcBackendOptions(init_method=f"tcp://127.0.0.1:{port}")


def test_rank_0_alone_times_out_and_rpc_stays_uninitialized(monkeypatch):
    monkeypatch.setenv("MSNB_RPC_INIT_TIMEOUT", "1")
    with pytest.raises(RuntimeError, match="rendezvous timed out: 1 of 2 workers joined"):
        rpc.init_rpc("lonely", rank=0, world_size=2, rpc_backend_options=_options(_free_port()))
    with pytest.raises(RuntimeError, match="RPC has not been initialized"):
        rpc.get_worker_info()
    rpc.init_rpc("again", rank=0, world_size=1, rpc_backend_options=_options(_free_port()))  # nothing was left open
    assert rpc.get_worker_info().name == "again"
    rpc.shutdown()


def test_a_worker_without_its_master_says_so(monkeypatch):
    monkeypatch.setenv("MSNB_RPC_INIT_TIMEOUT", "1")
    port = _free_port()
    with pytest.raises(RuntimeError, match=rf"could not reach the RPC master \(rank 0\) at 127.0.0.1:{port}"):
        rpc.init_rpc("orphan", rank=1, world_size=2, rpc_backend_options=_options(port))


def test_env_rendezvous_needs_master_addr(monkeypatch):
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    monkeypatch.delenv("MASTER_PORT", raising=False)
    with pytest.raises(ValueError, match="environment variable MASTER_ADDR expected, but not set"):
        rpc.init_rpc("w", rank=0, world_size=1)
    with pytest.raises(ValueError, match="out of range"):
        rpc.init_rpc("w", rank=3, world_size=2)
