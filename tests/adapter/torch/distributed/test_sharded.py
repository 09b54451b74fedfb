"""DeviceMesh, DTensor, tensor parallel, FSDP2, FSDP1, the checkpoint state dicts and distributed checkpoint
save / load on 2 CPU workers.

One launch (sharded_worker.py) serves the whole module.  Values are checked
against real PyTorch run here in one process on the whole batch: the sharded
training must end with the parameters single-process PyTorch reaches."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real

from ._job import run_workers

TOL = {"rtol": 1e-5, "atol": 1e-6}


#: the whole MLP state the test saves in one process for the workers to load on 2 ranks
ONE = {k: np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 10 + i
       for i, (k, shape) in enumerate({"w1.weight": (5, 4), "w1.bias": (5,), "w2.weight": (3, 5),
                                       "w2.bias": (3,)}.items())}


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    import msnb.adapter.torch as mt
    from msnb.adapter.torch.distributed import checkpoint as mdcp
    out = tmp_path_factory.mktemp("sharded")
    mdcp.save({"model": {k: mt.tensor(v) for k, v in ONE.items()}}, checkpoint_id=out / "dcp_one", no_dist=True)
    code, ranks, printed, _ = run_workers("sharded_worker.py", out)
    assert code == 0 and len(ranks) == 2, printed
    arrays = [dict(np.load(out / f"rank{r['rank']}.npz")) for r in ranks]
    return ranks, arrays, out


class RealMLP(real.nn.Module):
    def __init__(self, state, prefix=""):
        super().__init__()
        self.w1 = real.nn.Linear(4, 5)
        self.w2 = real.nn.Linear(5, 3)
        self.load_state_dict({k: real.from_numpy(state[f"{prefix}{k}"]) for k in self.state_dict()})

    def forward(self, x):
        return self.w2(real.tanh(self.w1(x)))


def _chunk(a, rank, dim=0):
    return real.from_numpy(a).chunk(2, dim)[rank].numpy()


def _train_whole_batch(model, opt, a, steps=5):
    xs, ys = real.from_numpy(a["train_x"]), real.from_numpy(a["train_y"])
    for s in range(steps):
        opt.zero_grad()
        real.nn.functional.mse_loss(model(xs[s]), ys[s]).backward()
        opt.step()


def test_device_meshes_give_pytorch_groups_and_coordinates(job):
    ranks, _, _ = job
    for r in ranks:
        m, k = r["mesh"], r["rank"]
        assert (m["m1_size"], m["m1_local"], m["m1_group"]) == (2, k, [0, 1])
        assert (m["m2_shape"], m["m2_tp_size"], m["m2_dp_size"], m["m2_tp_local"], m["m2_coord"]) == \
            ([1, 2], 2, 1, k, [0, k])
        assert (m["m3_dp_ranks"], m["m3_tp_ranks"], m["m3_tp_mesh"]) == ([0, 1], [k], [k])
    assert ranks[0]["backend_cpu"] == real.distributed.get_default_backend_for_device("cpu")


def test_dtensor_shards_replicates_and_redistributes(job):
    ranks, arrays, _ = job
    base = np.arange(15.0).reshape(5, 3)
    for r, a in zip(ranks, arrays):
        d, k = r["dtensor"], r["rank"]
        assert d["local_shape"] == [[3, 3], [2, 3]][k] and d["global_shape"] == [5, 3]
        assert d["full_ok"] and d["s0_to_r"] and d["pointwise_ok"] and d["is_dtensor"]
        assert d["s0_to_s1"] == _chunk(base, k, 1).tolist() == d["r_to_s1"]
        assert d["partial_to_r"] == [3.0, 3.0] and d["partial_to_s0"] == [3.0]
        assert "DTensor.matmul is not supported by msnb yet" in d["refused"]
        b = real.tensor(base, dtype=real.float32, requires_grad=True)
        (((b * 2 + 1).tanh() - b) ** 2).sum().backward()
        np.testing.assert_allclose(a["dtensor_grad_local"], _chunk(b.grad.numpy(), k), **TOL)


def test_tensor_parallel_matches_single_process_pytorch(job):
    ranks, arrays, _ = job
    for r, a in zip(ranks, arrays):
        k, t = r["rank"], r["tp"]
        assert (t["w1_local"], t["w2_local"], t["b2_local"]) == ([[3, 4], [2, 4]][k], [[3, 3], [3, 2]][k], [3])
        assert (t["w1_placements"], t["w2_placements"]) == ("(Shard(dim=0),)", "(Shard(dim=1),)")
        assert t["w1_full_is_rank0"]
        model = RealMLP(a, "tp_init_")
        x = real.from_numpy(a["tp_x"]).requires_grad_()
        y = model(x)
        (y * real.from_numpy(a["tp_g"])).sum().backward()
        np.testing.assert_allclose(a["tp_y"], y.detach().numpy(), **TOL)
        np.testing.assert_allclose(a["tp_xgrad"], x.grad.numpy(), **TOL)
        np.testing.assert_allclose(a["tp_w1_grad"], _chunk(model.w1.weight.grad.numpy(), k), **TOL)
        np.testing.assert_allclose(a["tp_b1_grad"], _chunk(model.w1.bias.grad.numpy(), k), **TOL)
        np.testing.assert_allclose(a["tp_w2_grad"], _chunk(model.w2.weight.grad.numpy(), k, 1), **TOL)
        np.testing.assert_allclose(a["tp_b2_grad"], model.w2.bias.grad.numpy(), **TOL)
        opt = real.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            real.nn.functional.mse_loss(model(x.detach()), real.from_numpy(a["tp_g"])).backward()
            opt.step()
        np.testing.assert_allclose(a["tp_trained_w1"], model.w1.weight.detach().numpy(), **TOL)
        np.testing.assert_allclose(a["tp_trained_w2"], model.w2.weight.detach().numpy(), **TOL)
        opt.zero_grad()
        real.nn.functional.mse_loss(model(x.detach()), real.from_numpy(a["tp_g"])).backward()
        total = real.nn.utils.clip_grad_norm_(model.parameters(), 0.01)
        assert abs(t["tp_clip_total"] - float(total)) <= 1e-5 * float(total)  # the whole gradients' norm
        np.testing.assert_allclose(a["tp_clipped_w1_grad"], _chunk(model.w1.weight.grad.numpy(), k), **TOL)


def test_sequence_parallel_layer_norm_matches_pytorch(job):
    ranks, arrays, _ = job
    for r, a in zip(ranks, arrays):
        assert r["tp"]["sp_out_placements"] == "(Shard(dim=1),)"
        ln = real.nn.LayerNorm(4)
        with real.no_grad():
            ln.weight.copy_(real.linspace(0.5, 1.5, 4))
        out = ln(real.from_numpy(a["sp_seq"]))
        (out * real.arange(32.0).reshape(2, 4, 4)).sum().backward()
        np.testing.assert_allclose(a["sp_out"], out.detach().numpy(), **TOL)
        np.testing.assert_allclose(a["sp_wgrad"], ln.weight.grad.numpy(), **TOL)
        np.testing.assert_allclose(a["sp_bgrad"], ln.bias.grad.numpy(), **TOL)


def test_fully_shard_training_matches_single_process_pytorch(job):
    ranks, arrays, _ = job
    model = RealMLP(arrays[0], "init_")
    opt = real.optim.Adam(model.parameters(), lr=0.01)
    _train_whole_batch(model, opt, arrays[0])
    for r, a in zip(ranks, arrays):
        f, k = r["fsdp2"], r["rank"]
        assert f["is_fsdp_module"] and f["class"] == "FSDPMLP" and f["placements"] == "(Shard(dim=0),)"
        assert f["local_shapes"] == f["sharded_shapes"] == [
            {"w1.weight": [3, 4], "w1.bias": [3], "w2.weight": [2, 5], "w2.bias": [2]},
            {"w1.weight": [2, 4], "w1.bias": [2], "w2.weight": [1, 5], "w2.bias": [1]}][k]
        for name, p in model.named_parameters():
            np.testing.assert_allclose(a[f"fsdp2_{name}"], p.detach().numpy(), **TOL)
        np.testing.assert_allclose(a["fsdp2_exp_avg_w1"], opt.state[model.w1.weight]["exp_avg"].numpy(), **TOL)


def test_clip_grad_norm_of_fully_shard_pieces_is_the_whole_gradients_norm(job):
    ranks, arrays, _ = job
    model = RealMLP(arrays[0], "init_")
    opt = real.optim.Adam(model.parameters(), lr=0.01)
    _train_whole_batch(model, opt, arrays[0])
    opt.zero_grad()
    x, y = (real.from_numpy(arrays[0][k][0]) for k in ("train_x", "train_y"))
    real.nn.functional.mse_loss(model(x), y).backward()
    inf = max(float(p.grad.abs().max()) for p in model.parameters())
    total = float(real.nn.utils.clip_grad_norm_(model.parameters(), 0.01))
    for r, a in zip(ranks, arrays):
        assert abs(r["fsdp2"]["clip_total"] - total) <= 1e-5 * total
        assert abs(r["fsdp2"]["clip_inf"] - inf * 0.01 / (total + 1e-6)) <= 1e-5 * inf
        np.testing.assert_allclose(a["fsdp2_clipped_w2_grad"], _chunk(model.w2.weight.grad.numpy(), r["rank"]),
                                   **TOL)


def test_checkpoint_state_dicts_gather_offload_and_load(job):
    ranks, _, _ = job
    keys = ["w1.weight", "w1.bias", "w2.weight", "w2.bias"]
    for r in ranks:
        f = r["fsdp2"]
        assert f["full_keys"] == keys and f["optim_params"] == keys and f["optim_keys"] == sorted(keys)
        assert f["offloaded_keys"] == (keys if r["rank"] == 0 else [])  # cpu_offload: rank 0 only, as PyTorch
        assert f["loaded_pieces_equal"] and f["next_step_equal"]
        assert f["state_dict_dtensors"] and f["state_dict_full_tensor_ok"]
        assert f["sharded_global_shapes"] == {"w1.weight": [5, 4], "w1.bias": [5], "w2.weight": [3, 5],
                                              "w2.bias": [3]}
        assert f["mp"] == {"out": "torch.float32", "param": "torch.float32", "grad": "torch.float32"}


def test_mixed_precision_runs_the_forward_in_float16(job):
    _, arrays, _ = job
    model = RealMLP(arrays[0], "init_")
    want = model(real.from_numpy(arrays[0]["train_x"][0, :3])).detach().numpy()
    for a in arrays:
        got = a["mp_out"]
        assert not np.array_equal(got, want)  # float16 compute rounds differently
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)


def test_fully_sharded_data_parallel_trains_and_gives_state_dict_types(job):
    ranks, arrays, _ = job
    model = RealMLP(arrays[0], "fsdp1_init_")
    np.testing.assert_array_equal(arrays[1]["fsdp1_init_w1.weight"], arrays[0]["fsdp1_init_w1.weight"])
    opt = real.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    _train_whole_batch(model, opt, arrays[0])
    for name, p in model.named_parameters():
        np.testing.assert_allclose(arrays[0][f"fsdp1_{name}"], p.detach().numpy(), **TOL)
    shapes = [{"w1.weight": [3, 4], "w1.bias": [3], "w2.weight": [2, 5], "w2.bias": [2]},
              {"w1.weight": [2, 4], "w1.bias": [2], "w2.weight": [1, 5], "w2.bias": [1]}]
    for r in ranks:
        f, k = r["fsdp1"], r["rank"]
        assert f["module_class"] == "MLP" and f["type_after"] == "FULL_STATE_DICT" and f["loaded_ones"]
        assert f["full_keys"] == (list(shapes[0]) if k == 0 else [])  # rank0_only=True
        assert f["sharded_shapes"] == f["local_shapes"] == shapes[k]
        assert f["sharded_global_shapes"] == {"w1.weight": [5, 4], "w1.bias": [5], "w2.weight": [3, 5],
                                              "w2.bias": [3]}  # DTensors of the pieces, as PyTorch's


def test_fully_shard_gradient_accumulation_without_sync_matches_pytorch(job):
    ranks, arrays, _ = job
    model = RealMLP(arrays[0], "accum_init_")
    xs, ys = (real.from_numpy(arrays[0][k]) for k in ("train_x", "train_y"))
    for s in (1, 2, 3):  # each rank's mean loss on its half, averaged over the ranks, summed over micro-batches
        ((real.nn.functional.mse_loss(model(xs[s, :3]), ys[s, :3]) +
          real.nn.functional.mse_loss(model(xs[s, 3:]), ys[s, 3:])) / 2).backward()
    for r, a in zip(ranks, arrays):
        assert r["fsdp2"]["accum_grads_none"]
        np.testing.assert_allclose(a["accum_w1_grad"], _chunk(model.w1.weight.grad.numpy(), r["rank"]), **TOL)


def test_prepare_module_input_and_output_match_single_process_pytorch(job):
    """A sequence-parallel block: PrepareModuleInput gathers the sequence (positional and keyword layouts)
    for the feed-forward's colwise / rowwise pair, PrepareModuleOutput gathers the block's output."""
    ranks, arrays, _ = job

    class RealBlock(real.nn.Module):
        def __init__(self, a):
            super().__init__()
            self.norm = real.nn.LayerNorm(4)
            self.ffn = real.nn.Module()
            self.ffn.w1, self.ffn.w2 = real.nn.Linear(4, 6), real.nn.Linear(6, 4)
            self.load_state_dict({k: real.from_numpy(a[f"pm_init_{k}"]) for k in self.state_dict()})

        def forward(self, x, scale):
            return x + self.ffn.w2(real.tanh(self.ffn.w1(self.norm(x)))) * scale

    for r, a in zip(ranks, arrays):
        k, p = r["rank"], r["prepare"]
        assert p["out_shape"] == [2, 4, 4] and p["out_is_plain"]
        assert p["repr"] == repr(real.distributed.tensor.parallel.PrepareModuleOutput(
            output_layouts=real.distributed.tensor.Shard(1), desired_output_layouts=real.distributed.tensor.Replicate()))
        block = RealBlock(arrays[0])
        out = block(real.from_numpy(a["pm_x"]), real.tensor(1.5))
        (out * real.from_numpy(a["pm_g"])).sum().backward()
        np.testing.assert_allclose(a["pm_out"], out.detach().numpy(), **TOL)
        np.testing.assert_allclose(a["pm_w1_grad"], _chunk(block.ffn.w1.weight.grad.numpy(), k), **TOL)
        np.testing.assert_allclose(a["pm_w2_grad"], _chunk(block.ffn.w2.weight.grad.numpy(), k, 1), **TOL)
        np.testing.assert_allclose(a["pm_norm_wgrad"], block.norm.weight.grad.numpy(), **TOL)


def test_distributed_checkpoint_round_trips_fsdp2_fsdp1_and_stateful_on_two_ranks(job):
    ranks, _, _ = job
    for r in ranks:
        d = r["dcp"]
        assert d["files"] == [".metadata", "__0_0.distcp", "__1_0.distcp"]  # one file per rank + metadata
        assert d["chunks"] == [[3, 4], [2, 4]]  # each rank's piece of w1.weight
        assert d["loaded_equal"] and d["next_step_equal"] and d["stateful_equal"] and d["fsdp1_equal"]
        assert d["extra"] == {"step": 3, "tag": "fsdp2"}


def test_two_rank_checkpoint_loads_in_one_process_as_pytorch_trained_it(job):
    """2 -> 1 resharding: the pieces of both ranks fill whole tensors; the values are what single-process
    PyTorch reaches with Adam on the whole batch (and its exp_avg)."""
    import msnb.adapter.torch as mt
    from msnb.adapter.torch.distributed import checkpoint as mdcp
    _, arrays, out = job
    a = arrays[0]
    model = RealMLP(a, "ck_init_")
    opt = real.optim.Adam(model.parameters(), lr=0.01)
    xs, ys = real.from_numpy(a["ck_x"]), real.from_numpy(a["ck_y"])
    for s in range(xs.shape[0]):
        opt.zero_grad()
        real.nn.functional.mse_loss(model(xs[s]), ys[s]).backward()
        opt.step()
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    target = {"model": {k: mt.zeros(v) for k, v in shapes.items()},
              "optim": {"state": {k: {"exp_avg": mt.zeros(v), "exp_avg_sq": mt.zeros(v), "step": mt.tensor(0.0)}
                                  for k, v in shapes.items()}},
              "extra": {"step": 0, "tag": ""}}
    mdcp.load(target, checkpoint_id=out / "dcp_fsdp2", no_dist=True)
    assert target["extra"] == {"step": 3, "tag": "fsdp2"}
    by_id = dict(zip(shapes, model.parameters()))
    for k, p in by_id.items():
        np.testing.assert_array_equal(target["model"][k].numpy(), a[f"ck_full_{k}"])
        np.testing.assert_allclose(target["model"][k].numpy(), p.detach().numpy(), **TOL)
        st = opt.state[p]
        np.testing.assert_allclose(target["optim"]["state"][k]["exp_avg"].numpy(), st["exp_avg"].numpy(), **TOL)
        np.testing.assert_allclose(target["optim"]["state"][k]["exp_avg_sq"].numpy(), st["exp_avg_sq"].numpy(),
                                   rtol=1e-5, atol=1e-9)
        assert float(target["optim"]["state"][k]["step"]) == float(st["step"]) == 3.0


def test_one_process_checkpoint_loads_into_two_ranks_pieces(job):
    """1 -> 2 resharding: each rank's FSDP2 piece is its dim-0 chunk of the whole tensor saved here."""
    ranks, arrays, _ = job
    for r, a in zip(ranks, arrays):
        for k, v in ONE.items():
            np.testing.assert_array_equal(a[f"one_{k}"], _chunk(v, r["rank"]))

