"""Run by test_sharded.py on 2 workers: DeviceMesh, DTensor, tensor parallel (with PrepareModuleInput /
PrepareModuleOutput), FSDP2, FSDP1, the distributed-checkpoint state dicts and distributed checkpoint
save / load, all in one job.

Each rank writes facts to ``$OUT/rank<k>.json`` and the arrays the test
compares with real PyTorch (single process, whole batch) to
``$OUT/rank<k>.npz``."""

import json
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed._tensor import Replicate, Shard
from torch.distributed._tensor.device_mesh import init_device_mesh
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import FileSystemReader, FileSystemWriter, load_state_dict, save_state_dict
from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner, DefaultSavePlanner
from torch.distributed.checkpoint.stateful import Stateful
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict, get_state_dict, set_model_state_dict,
                                                     set_optimizer_state_dict, set_state_dict)
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.fully_sharded_data_parallel import FullStateDictConfig, StateDictType
from torch.distributed.tensor import DTensor, Partial, distribute_tensor
from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, PrepareModuleOutput,
                                               RowwiseParallel, SequenceParallel, parallelize_module)

ARRAYS = {}


class MLP(nn.Module):
    """Uneven on purpose: 5 hidden features split 3 + 2 over two ranks."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(4, 5)
        self.w2 = nn.Linear(5, 3)

    def forward(self, x):
        return self.w2(torch.tanh(self.w1(x)))


def _np(t):
    return t.detach().numpy().copy()


def _gathered(t):
    """Every rank's tensor (same shape), stacked."""
    parts = [torch.zeros_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, t.detach().contiguous())
    return np.stack([_np(p) for p in parts])


def meshes(rank):
    m1 = init_device_mesh("cpu", (2,), mesh_dim_names=("dp",))
    m2 = init_device_mesh("cpu", (1, 2), mesh_dim_names=("dp", "tp"))
    m3 = init_device_mesh("cpu", (2, 1), mesh_dim_names=("dp", "tp"))
    return {"m1_size": m1.size(), "m1_local": m1.get_local_rank(), "m1_group": dist.get_process_group_ranks(
        m1.get_group()), "m2_shape": list(m2.shape), "m2_tp_size": m2["tp"].size(), "m2_dp_size": m2["dp"].size(),
        "m2_tp_local": m2.get_local_rank("tp"), "m2_coord": m2.get_coordinate(),
        "m3_dp_ranks": dist.get_process_group_ranks(m3.get_group("dp")),
        "m3_tp_ranks": dist.get_process_group_ranks(m3.get_group("tp")),
        "m3_tp_mesh": m3["tp"].mesh.tolist(), "repr": repr(m1)}


def dtensors(rank):
    mesh = init_device_mesh("cpu", (2,))
    base = torch.arange(15.0).reshape(5, 3)
    x = (base + 100 * rank).requires_grad_()  # rank 1's values differ: distribute_tensor sends rank 0's
    d = distribute_tensor(x, mesh, [Shard(0)])
    facts = {"local_shape": list(d.to_local().shape), "global_shape": list(d.shape),
             "placements": repr(d.placements), "is_dtensor": isinstance(d, DTensor),
             "full_ok": torch.equal(d.full_tensor(), base),
             "s0_to_s1": _np(d.redistribute(mesh, [Shard(1)]).to_local()).tolist(),
             "s0_to_r": torch.equal(d.redistribute(mesh, [Replicate()]).to_local(), base)}
    y = (d * 2 + 1).tanh() - d
    facts["pointwise_ok"] = bool(torch.allclose(y.full_tensor(), (base * 2 + 1).tanh() - base))
    (y.full_tensor() ** 2).sum().backward()
    ARRAYS["dtensor_grad_local"] = _np(d.grad.to_local())
    r = distribute_tensor(base, mesh, [Replicate()])
    facts["r_to_s1"] = _np(r.redistribute(mesh, [Shard(1)]).to_local()).tolist()
    p = DTensor.from_local(torch.full((2,), float(rank + 1)), mesh, [Partial()])
    facts["partial_to_r"] = _np(p.redistribute(mesh, [Replicate()]).to_local()).tolist()
    facts["partial_to_s0"] = _np(p.redistribute(mesh, [Shard(0)]).to_local()).tolist()
    try:
        d.matmul(d)
        facts["refused"] = "no error"
    except AttributeError as e:
        facts["refused"] = str(e)
    return facts


def tensor_parallel(rank):
    mesh = init_device_mesh("cpu", (2,), mesh_dim_names=("tp",))
    torch.manual_seed(100 + rank)  # different on purpose: parallelize_module starts from rank 0's weights
    model = MLP()
    rank0 = [dict(model.state_dict())] if rank == 0 else [None]
    dist.broadcast_object_list(rank0, src=0)
    for k, v in rank0[0].items():
        ARRAYS[f"tp_init_{k}"] = _np(v)
    parallelize_module(model, mesh, {"w1": ColwiseParallel(), "w2": RowwiseParallel()})
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.standard_normal((6, 4)).astype(np.float32)).requires_grad_()
    g = torch.from_numpy(rng.standard_normal((6, 3)).astype(np.float32))
    y = model(x)
    (y * g).sum().backward()
    ARRAYS.update(tp_x=_np(x), tp_g=_np(g), tp_y=_np(y), tp_xgrad=_np(x.grad),
                  tp_w1_grad=_np(model.w1.weight.grad), tp_w2_grad=_np(model.w2.weight.grad),
                  tp_b1_grad=_np(model.w1.bias.grad), tp_b2_grad=_np(model.w2.bias.grad))
    facts = {"w1_local": list(model.w1.weight.shape), "w2_local": list(model.w2.weight.shape),
             "b2_local": list(model.w2.bias.shape), "w1_placements": repr(model.w1.weight.placements),
             "w2_placements": repr(model.w2.weight.placements),
             "w1_full_is_rank0": bool(torch.equal(model.w1.weight.full_tensor(), rank0[0]["w1.weight"]))}
    # three SGD steps on the sharded weights
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        F.mse_loss(model(x.detach()), g).backward()
        opt.step()
    ARRAYS["tp_trained_w1"] = _np(model.w1.weight.full_tensor())
    ARRAYS["tp_trained_w2"] = _np(model.w2.weight.full_tensor())
    opt.zero_grad()
    F.mse_loss(model(x.detach()), g).backward()
    facts["tp_clip_total"] = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01))
    ARRAYS["tp_clipped_w1_grad"] = _np(model.w1.weight.grad)
    # SequenceParallel LayerNorm: each rank its half of the sequence
    torch.manual_seed(0)
    ln = nn.LayerNorm(4)
    with torch.no_grad():
        ln.weight.copy_(torch.linspace(0.5, 1.5, 4))
    parallelize_module(ln, mesh, SequenceParallel())
    seq = torch.from_numpy(rng.standard_normal((2, 4, 4)).astype(np.float32))
    out = ln(seq[:, 2 * rank:2 * rank + 2])
    facts["sp_out_placements"] = repr(out.placements)
    (out.full_tensor() * torch.arange(32.0).reshape(2, 4, 4)).sum().backward()
    ARRAYS.update(sp_seq=_np(seq), sp_out=_np(out.full_tensor()), sp_wgrad=_np(ln.weight.grad),
                  sp_bgrad=_np(ln.bias.grad))
    return facts


def _batches(steps, world, per_rank):
    rng = np.random.default_rng(2)
    xs = torch.from_numpy(rng.standard_normal((steps, world * per_rank, 4)).astype(np.float32))
    ys = torch.from_numpy(rng.standard_normal((steps, world * per_rank, 3)).astype(np.float32))
    ARRAYS.update(train_x=_np(xs), train_y=_np(ys))
    return xs, ys


def _train(model, opt, xs, ys, rank, per_rank):
    mine = slice(rank * per_rank, (rank + 1) * per_rank)
    for s in range(xs.shape[0]):
        opt.zero_grad()
        F.mse_loss(model(xs[s, mine]), ys[s, mine]).backward()
        opt.step()


def fsdp2(rank, steps=5, per_rank=3):
    torch.manual_seed(0)  # FSDP2 does not broadcast: every rank builds the same model
    model = MLP()
    for k, v in model.state_dict().items():
        ARRAYS[f"init_{k}"] = _np(v)
    mesh = init_device_mesh("cpu", (2,), mesh_dim_names=("dp",))
    fully_shard(model.w1, mesh=mesh)
    fully_shard(model, mesh=mesh)
    facts = {"is_fsdp_module": isinstance(model, FSDPModule), "class": type(model).__name__,
             "local_shapes": {k: list(v.shape) for k, v in model.named_parameters()},
             "placements": repr(model.w1.weight.placements)}
    xs, ys = _batches(steps, 2, per_rank)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    _train(model, opt, xs, ys, rank, per_rank)
    mine = slice(rank * per_rank, (rank + 1) * per_rank)
    opt.zero_grad()
    F.mse_loss(model(xs[0, mine]), ys[0, mine]).backward()
    facts["clip_total"] = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01))
    facts["clip_inf"] = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9, norm_type="inf"))
    ARRAYS["fsdp2_clipped_w2_grad"] = _np(model.w2.weight.grad)
    opt.zero_grad()
    full = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
    for k, v in full.items():
        ARRAYS[f"fsdp2_{k}"] = _np(v)
    facts["full_keys"] = list(full)
    offloaded = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    facts["offloaded_keys"] = list(offloaded)
    sharded = get_model_state_dict(model)  # DTensors of the pieces, as PyTorch
    facts["sharded_shapes"] = {k: list(v.to_local().shape) for k, v in sharded.items()}
    facts["sharded_global_shapes"] = {k: list(v.shape) for k, v in sharded.items()}
    own = model.state_dict()
    facts["state_dict_dtensors"] = all(isinstance(v, DTensor) for v in [*sharded.values(), *own.values()])
    facts["state_dict_full_tensor_ok"] = all(torch.equal(own[k].full_tensor(), full[k]) for k in full)
    osd = get_optimizer_state_dict(model, opt, options=StateDictOptions(full_state_dict=True))
    facts["optim_keys"] = sorted(osd["state"])
    facts["optim_params"] = osd["param_groups"][0]["params"]
    ARRAYS["fsdp2_exp_avg_w1"] = _np(osd["state"]["w1.weight"]["exp_avg"])
    # load the full dicts into a fresh sharded model + optimizer: the pieces and the next step agree
    torch.manual_seed(5)
    other = MLP()
    fully_shard(other.w1, mesh=mesh)
    fully_shard(other, mesh=mesh)
    other_opt = torch.optim.Adam(other.parameters(), lr=0.01)
    msd, _ = get_state_dict(model, opt)
    set_state_dict(other, other_opt, model_state_dict=full, optim_state_dict=osd)
    facts["loaded_pieces_equal"] = all(torch.equal(a, b) for a, b in zip(model.parameters(), other.parameters()))
    set_model_state_dict(other, msd)  # sharded form too
    other.load_state_dict(model.state_dict())  # DTensors
    other.load_state_dict(full)  # whole tensors
    set_optimizer_state_dict(other, other_opt, osd, options=StateDictOptions(full_state_dict=True))
    _train(model, opt, xs[:1], ys[:1], rank, per_rank)
    _train(other, other_opt, xs[:1], ys[:1], rank, per_rank)
    facts["next_step_equal"] = all(torch.allclose(a, b, rtol=0, atol=1e-7)
                                   for a, b in zip(model.parameters(), other.parameters()))
    # gradient accumulation: no reduce-scatter for two micro-batches, then one synced backward
    for k, v in get_model_state_dict(other, options=StateDictOptions(full_state_dict=True)).items():
        ARRAYS[f"accum_init_{k}"] = _np(v)
    other_opt.zero_grad()
    other.set_requires_gradient_sync(False)
    for s in (1, 2):
        F.mse_loss(other(xs[s, mine]), ys[s, mine]).backward()
    facts["accum_grads_none"] = all(p.grad is None for p in other.parameters())
    other.set_requires_gradient_sync(True)
    F.mse_loss(other(xs[3, mine]), ys[3, mine]).backward()
    ARRAYS["accum_w1_grad"] = _np(other.w1.weight.grad)
    # mixed precision: float16 compute, float32 pieces and gradients
    torch.manual_seed(0)
    mp = MLP()
    fully_shard(mp, mesh=mesh, mp_policy=MixedPrecisionPolicy(param_dtype=torch.float16,
                                                              output_dtype=torch.float32))
    out = mp(xs[0, :per_rank])
    out.sum().backward()
    facts["mp"] = {"out": str(out.dtype), "param": str(mp.w1.weight.dtype), "grad": str(mp.w1.weight.grad.dtype)}
    ARRAYS["mp_out"] = _np(out)
    return facts


def fsdp1(rank, steps=5, per_rank=3):
    torch.manual_seed(200 + rank)
    model = FSDP(MLP(), sync_module_states=True)  # rank 0's weights
    xs, ys = _batches(steps, 2, per_rank)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
        init = model.state_dict()
    for k, v in init.items():
        ARRAYS[f"fsdp1_init_{k}"] = _np(v)
    _train(model, opt, xs, ys, rank, per_rank)
    facts = {"module_class": type(model.module).__name__}
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(offload_to_cpu=True,
                                                                                         rank0_only=True)):
        full = model.state_dict()
    facts["full_keys"] = list(full)
    for k, v in full.items():
        ARRAYS[f"fsdp1_{k}"] = _np(v)
    with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
        sharded = model.state_dict()
        facts["sharded_shapes"] = {k: list(v.to_local().shape) for k, v in sharded.items()}
        facts["sharded_global_shapes"] = {k: list(v.shape) for k, v in sharded.items()}
    with FSDP.state_dict_type(model, StateDictType.LOCAL_STATE_DICT):
        facts["local_shapes"] = {k: list(v.shape) for k, v in model.state_dict().items()}
    facts["type_after"] = FSDP.get_state_dict_type(model).state_dict_type.name
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
        everything = model.state_dict()
        model.load_state_dict({k: v * 0 + 1 for k, v in everything.items()})
        facts["loaded_ones"] = all(bool((p == 1).all()) for p in model.parameters())
    return facts


class FFN(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(4, 6)
        self.w2 = nn.Linear(6, 4)

    def forward(self, x, scale=None):
        return self.w2(torch.tanh(self.w1(x))) * scale


class Block(nn.Module):
    """A sequence-parallel block: norm on sequence shards, the feed-forward on the whole sequence."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(4)
        self.ffn = FFN()

    def forward(self, x, scale):
        return x + self.ffn(self.norm(x), scale=scale)


def prepare_styles(rank):
    """PrepareModuleInput (positional and keyword layouts) / PrepareModuleOutput around tensor parallel."""
    mesh = init_device_mesh("cpu", (2,))
    torch.manual_seed(7)
    block = Block()
    for k, v in block.state_dict().items():
        ARRAYS[f"pm_init_{k}"] = _np(v)
    parallelize_module(block, mesh, {
        "norm": SequenceParallel(),
        "ffn": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),),
                                  input_kwarg_layouts={"scale": Replicate()},
                                  desired_input_kwarg_layouts={"scale": Replicate()}, use_local_output=True),
        "ffn.w1": ColwiseParallel(), "ffn.w2": RowwiseParallel(output_layouts=Shard(1))})
    parallelize_module(block, mesh, PrepareModuleOutput(output_layouts=Shard(1), desired_output_layouts=Replicate()))
    rng = np.random.default_rng(3)
    x = torch.from_numpy(rng.standard_normal((2, 4, 4)).astype(np.float32))
    g = torch.from_numpy(rng.standard_normal((2, 4, 4)).astype(np.float32))
    out = block(x[:, 2 * rank:2 * rank + 2], scale=torch.tensor(1.5))
    (out * g).sum().backward()
    ARRAYS.update(pm_x=_np(x), pm_g=_np(g), pm_out=_np(out), pm_w1_grad=_np(block.ffn.w1.weight.grad),
                  pm_w2_grad=_np(block.ffn.w2.weight.grad), pm_norm_wgrad=_np(block.norm.weight.grad))
    return {"out_shape": list(out.shape), "out_is_plain": not isinstance(out, DTensor),
            "repr": repr(PrepareModuleOutput(output_layouts=Shard(1), desired_output_layouts=Replicate()))}


class AppState(Stateful):
    """PyTorch's recipe: the model and optimizer state behind one Stateful."""

    def __init__(self, model, opt):
        self.model, self.opt = model, opt

    def state_dict(self):
        m, o = get_state_dict(self.model, self.opt)
        return {"model": m, "optim": o}

    def load_state_dict(self, sd):
        set_state_dict(self.model, self.opt, model_state_dict=sd["model"], optim_state_dict=sd["optim"])


def _ck_batches(steps=3, per_rank=3):
    rng = np.random.default_rng(4)
    xs = torch.from_numpy(rng.standard_normal((steps, 2 * per_rank, 4)).astype(np.float32))
    ys = torch.from_numpy(rng.standard_normal((steps, 2 * per_rank, 3)).astype(np.float32))
    ARRAYS.update(ck_x=_np(xs), ck_y=_np(ys))
    return xs, ys


def _same(a, b):
    return all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def _fsdp2_mlp(seed, mesh):
    torch.manual_seed(seed)
    model = MLP()
    fully_shard(model, mesh=mesh)
    return model, torch.optim.Adam(model.parameters(), lr=0.01)


def checkpoints(rank, out, per_rank=3):
    """torch.distributed.checkpoint save / load of FSDP2 and FSDP1 sharded state, 2 -> 2 and 1 -> 2 ranks."""
    mesh = init_device_mesh("cpu", (2,))
    xs, ys = _ck_batches(per_rank=per_rank)
    model, opt = _fsdp2_mlp(0, mesh)
    for k, v in get_model_state_dict(model, options=StateDictOptions(full_state_dict=True)).items():
        ARRAYS[f"ck_init_{k}"] = _np(v)
    _train(model, opt, xs, ys, rank, per_rank)
    msd, osd = get_state_dict(model, opt)
    where = os.path.join(out, "dcp_fsdp2")
    meta = dcp.save({"model": msd, "optim": osd, "extra": {"step": 3, "tag": "fsdp2"}}, checkpoint_id=where)
    facts = {"files": sorted(os.listdir(where)), "chunks": [list(c.sizes) for c in
                                                            meta.state_dict_metadata["model.w1.weight"].chunks]}
    for k, v in get_model_state_dict(model, options=StateDictOptions(full_state_dict=True)).items():
        ARRAYS[f"ck_full_{k}"] = _np(v)
    other, other_opt = _fsdp2_mlp(5, mesh)
    m2, o2 = get_state_dict(other, other_opt)
    target = {"model": m2, "optim": o2, "extra": {"step": 0, "tag": ""}}
    dcp.load(target, checkpoint_id=where)
    set_state_dict(other, other_opt, model_state_dict=target["model"], optim_state_dict=target["optim"])
    facts["loaded_equal"], facts["extra"] = _same(model, other), target["extra"]
    _train(model, opt, xs[:1], ys[:1], rank, per_rank)
    _train(other, other_opt, xs[:1], ys[:1], rank, per_rank)
    facts["next_step_equal"] = _same(model, other)
    # a Stateful app state, saved and loaded through its state_dict / load_state_dict
    app = os.path.join(out, "dcp_app")
    dcp.save({"app": AppState(model, opt)}, checkpoint_id=app)
    third, third_opt = _fsdp2_mlp(6, mesh)
    dcp.load({"app": AppState(third, third_opt)}, checkpoint_id=app)
    facts["stateful_equal"] = _same(model, third)
    # FSDP1's sharded state dict through the older names and planners (the FSDP example's handler)
    torch.manual_seed(0)
    f1 = FSDP(MLP(), sync_module_states=True)
    sgd = torch.optim.SGD(f1.parameters(), lr=0.1)
    _train(f1, sgd, xs, ys, rank, per_rank)
    old = os.path.join(out, "dcp_fsdp1")
    with FSDP.state_dict_type(f1, StateDictType.SHARDED_STATE_DICT):
        save_state_dict({"model": f1.state_dict()}, FileSystemWriter(old), planner=DefaultSavePlanner())
    torch.manual_seed(9)
    fresh = FSDP(MLP(), sync_module_states=True)
    with FSDP.state_dict_type(fresh, StateDictType.SHARDED_STATE_DICT):
        ck = {"model": fresh.state_dict()}
        load_state_dict(ck, FileSystemReader(old), planner=DefaultLoadPlanner())
        fresh.load_state_dict(ck["model"])
    facts["fsdp1_equal"] = _same(f1, fresh)
    # 1 -> 2 ranks: the checkpoint the test saved in one process, loaded into the pieces
    one, _ = _fsdp2_mlp(3, mesh)
    sd = get_model_state_dict(one)
    dcp.load({"model": sd}, checkpoint_id=os.path.join(out, "dcp_one"))
    set_model_state_dict(one, sd)
    for k, v in one.named_parameters():
        ARRAYS[f"one_{k}"] = _np(v)
    return facts


def main(out_dir):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    facts = {"rank": rank, "backend_cpu": dist.get_default_backend_for_device("cpu")}
    for name, fn in (("mesh", meshes), ("dtensor", dtensors), ("tp", tensor_parallel), ("fsdp2", fsdp2),
                     ("fsdp1", fsdp1), ("prepare", prepare_styles)):
        facts[name] = fn(rank)
    facts["dcp"] = checkpoints(rank, out_dir)
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **ARRAYS)
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(facts, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
