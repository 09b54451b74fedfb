"""FSDP, DTensor, tensor parallel and the checkpoint state dicts in a world of one process, against real PyTorch.

With one rank every collective returns its input, so the sharded modules must
compute exactly what PyTorch's plain modules compute; the public objects
(placements, configs, enums, styles) must print and compare as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch as real
import torch.distributed.checkpoint.state_dict as real_dsd
import torch.distributed.fsdp as real_fsdp
import torch.distributed.tensor as real_dt
import torch.distributed.tensor.parallel as real_tp

import msnb.adapter.torch as torch
import msnb.adapter.torch.distributed as dist
from msnb.adapter.torch._missing import NotSupportedError
from msnb.adapter.torch.distributed import checkpoint, fsdp
from msnb.adapter.torch.distributed import tensor as dt
from msnb.adapter.torch.distributed.checkpoint import state_dict as dsd
from msnb.adapter.torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from msnb.adapter.torch.distributed.fsdp import fully_sharded_data_parallel as fsdp1
from msnb.adapter.torch.distributed.tensor import parallel as tp
from msnb.adapter.torch.nn.parallel import DistributedDataParallel


def _pair():
    """The same MLP in msnb and in real PyTorch."""
    torch.manual_seed(0)
    mine = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3))
    theirs = real.nn.Sequential(real.nn.Linear(4, 6), real.nn.Tanh(), real.nn.Linear(6, 3))
    theirs.load_state_dict({k: real.from_numpy(v.numpy().copy()) for k, v in mine.state_dict().items()})
    return mine, theirs


def _data():
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32))
            for _ in range(3)]


def _train(model, lib, opt):
    for x, y in _data():
        opt.zero_grad()
        lib.nn.functional.mse_loss(model(lib.from_numpy(x)), lib.from_numpy(y)).backward()
        opt.step()


def _assert_params_equal(mine, theirs, named=None):
    got = dict(named if named is not None else mine.named_parameters())
    for k, p in theirs.named_parameters():
        np.testing.assert_allclose(got[k].detach().numpy(), p.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "cuda", "xpu", "mps", "cuda:0", "meta"])
def test_default_backend_for_device_is_pytorch_s(device):
    try:
        want = real.distributed.get_default_backend_for_device(device)
    except ValueError as e:
        with pytest.raises(ValueError, match="Default backend not registered"):
            dist.get_default_backend_for_device(device)
        assert "meta" in str(e)
        return
    assert dist.get_default_backend_for_device(device) == want
    assert dist.get_default_backend_for_device(torch.device("cpu")) == "gloo"


def test_placements_print_and_compare_as_pytorch():
    for mine, theirs in ((dt.Shard(0), real_dt.Shard(0)), (dt.Shard(-1), real_dt.Shard(-1)),
                         (dt.Replicate(), real_dt.Replicate()), (dt.Partial(), real_dt.Partial())):
        assert (repr(mine), str(mine)) == (repr(theirs), str(theirs))
        assert (mine.is_shard(), mine.is_replicate(), mine.is_partial()) == \
            (theirs.is_shard(), theirs.is_replicate(), theirs.is_partial())
    assert dt.Shard(1) == dt.Shard(1) != dt.Shard(0) and dt.Shard(0).is_shard(0) and not dt.Shard(0).is_shard(1)
    assert isinstance(dt.Replicate(), dt.Placement)


def test_configs_enums_and_styles_match_pytorch():
    for name in ("MixedPrecisionPolicy", "FullStateDictConfig", "ShardedStateDictConfig", "LocalStateDictConfig",
                 "FullOptimStateDictConfig", "ShardedOptimStateDictConfig", "LocalOptimStateDictConfig",
                 "OptimStateDictConfig", "StateDictConfig", "CPUOffload", "CPUOffloadPolicy", "OffloadPolicy"):
        assert repr(getattr(fsdp, name)()) == repr(getattr(real_fsdp, name)()), name
    assert repr(fsdp.FullStateDictConfig(offload_to_cpu=True, rank0_only=True)) == \
        repr(real_fsdp.FullStateDictConfig(offload_to_cpu=True, rank0_only=True))
    for enum in ("StateDictType", "ShardingStrategy", "BackwardPrefetch", "OptimStateKeyType"):
        assert [(m.name, m.value) for m in getattr(fsdp, enum)] == [(m.name, m.value) for m in
                                                                    getattr(real_fsdp, enum)], enum
    assert fsdp1.StateDictType.LOCAL_STATE_DICT is fsdp.StateDictType.LOCAL_STATE_DICT
    assert (fsdp1.FSDP_WRAPPED_MODULE, fsdp1.FSDP_PREFIX) == ("_fsdp_wrapped_module", "_fsdp_wrapped_module.")
    assert fsdp.ShardingStrategy.FULL_SHARD.name == "FULL_SHARD" and fsdp.ShardingStrategy.SHARD_GRAD_OP.value == 2
    mine, theirs = dsd.StateDictOptions(full_state_dict=True, cpu_offload=True), real_dsd.StateDictOptions(
        full_state_dict=True, cpu_offload=True)
    assert {k: getattr(mine, k) for k in vars(theirs)} == vars(theirs)
    for style in ("ColwiseParallel", "RowwiseParallel"):
        assert repr(getattr(tp, style)()) == repr(getattr(real_tp, style)())
    assert vars(tp.SequenceParallel()) == {"sequence_sharding": (dt.Shard(1),), "use_local_output": False}
    assert isinstance(tp.ColwiseParallel(), tp.ParallelStyle)
    assert fsdp.StateDictSettings.__dataclass_fields__.keys() == real_fsdp.StateDictSettings.__dataclass_fields__.keys()


def test_tensor_parallel_mlp_equals_pytorch(world_of_one):
    mine, theirs = _pair()
    tp.parallelize_module(mine, world_of_one, {"0": tp.ColwiseParallel(), "2": tp.RowwiseParallel()})
    assert mine[0].weight.placements == (dt.Shard(0),) and mine[2].weight.placements == (dt.Shard(1),)
    _train(mine, torch, torch.optim.SGD(mine.parameters(), lr=0.1))
    _train(theirs, real, real.optim.SGD(theirs.parameters(), lr=0.1))
    _assert_params_equal(mine, theirs)


def test_fully_shard_training_equals_pytorch(world_of_one):
    mine, theirs = _pair()
    fsdp.fully_shard(mine[0], mesh=world_of_one)
    fsdp.fully_shard(mine)
    assert isinstance(mine, fsdp.FSDPModule) and type(mine).__name__ == "FSDPSequential"
    _train(mine, torch, torch.optim.AdamW(mine.parameters(), lr=0.01))
    _train(theirs, real, real.optim.AdamW(theirs.parameters(), lr=0.01))
    _assert_params_equal(mine, theirs)
    mine.unshard()
    assert not isinstance(mine[2]._parameters["weight"], torch.nn.Parameter)  # the gathered value is in place
    mine.reshard()
    assert isinstance(mine[2]._parameters["weight"], torch.nn.Parameter)
    assert mine.unshard(async_op=True).wait() is None and isinstance(mine.unshard(async_op=True), fsdp.UnshardHandle)
    mine.reshard()
    # gradient accumulation: two backwards without sync, one with
    mine.zero_grad()
    theirs.zero_grad()
    mine.set_requires_gradient_sync(False)
    for i, (x, y) in enumerate(_data()):
        if i == 2:
            assert all(p.grad is None for p in mine.parameters())
            mine.set_requires_gradient_sync(True)
        torch.nn.functional.mse_loss(mine(torch.from_numpy(x)), torch.from_numpy(y)).backward()
        real.nn.functional.mse_loss(theirs(real.from_numpy(x)), real.from_numpy(y)).backward()
    for k, p in theirs.named_parameters():
        np.testing.assert_allclose(dict(mine.named_parameters())[k].grad.numpy(), p.grad.numpy(), rtol=1e-5,
                                   atol=1e-7)


def test_fully_sharded_data_parallel_training_and_clipping_equal_pytorch(world_of_one):
    mine, theirs = _pair()
    model = fsdp.FullyShardedDataParallel(mine, sharding_strategy=fsdp.ShardingStrategy.FULL_SHARD,
                                          cpu_offload=fsdp.CPUOffload(),
                                          backward_prefetch=fsdp.BackwardPrefetch.BACKWARD_PRE)
    assert model.module is mine
    opt, ref = torch.optim.SGD(model.parameters(), lr=0.1), real.optim.SGD(theirs.parameters(), lr=0.1)
    _train(model, torch, opt)
    _train(theirs, real, ref)
    with fsdp.FullyShardedDataParallel.state_dict_type(model, fsdp.StateDictType.FULL_STATE_DICT):
        _assert_params_equal(None, theirs, model.state_dict().items())
    x = real.ones(2, 4)
    theirs(x).sum().backward()
    model(torch.ones(2, 4)).sum().backward()
    want = real.nn.utils.clip_grad_norm_(theirs.parameters(), 0.5)
    got = model.clip_grad_norm_(0.5)
    assert abs(float(got) - float(want)) < 1e-5 * float(want)
    for k, p in theirs.named_parameters():
        np.testing.assert_allclose(dict(mine.named_parameters())[k].grad.numpy(), p.grad.numpy(), rtol=1e-5,
                                   atol=1e-7)
    old = fsdp.FullyShardedDataParallel.set_state_dict_type(model, fsdp.StateDictType.SHARDED_STATE_DICT,
                                                            fsdp.ShardedStateDictConfig())
    assert old.state_dict_type is fsdp.StateDictType.FULL_STATE_DICT
    assert fsdp.FullyShardedDataParallel.get_state_dict_type(model).state_dict_config == fsdp.ShardedStateDictConfig()
    with pytest.raises(NotImplementedError, match="HYBRID_SHARD.*not supported by msnb"):
        fsdp.FullyShardedDataParallel(torch.nn.Linear(2, 2), sharding_strategy=fsdp.ShardingStrategy.HYBRID_SHARD)


def test_checkpoint_state_dicts_drop_wrapper_prefixes_and_round_trip(world_of_one):
    mine, _ = _pair()
    ddp = DistributedDataParallel(mine)
    opt = torch.optim.Adam(ddp.parameters())
    ddp(torch.ones(2, 4)).sum().backward()
    opt.step()
    msd, osd = dsd.get_state_dict(ddp, opt, options=dsd.StateDictOptions(full_state_dict=True))
    assert list(msd) == ["0.weight", "0.bias", "2.weight", "2.bias"]  # PyTorch's FQNs: no "module."
    assert list(osd["state"]) == list(msd) and osd["param_groups"][0]["params"] == list(msd)
    fresh, _ = _pair()
    fresh_opt = torch.optim.Adam(fresh.parameters())
    keys = dsd.set_state_dict(fresh, fresh_opt, model_state_dict=msd, optim_state_dict=osd)
    assert (keys.missing_keys, keys.unexpected_keys) == ([], [])
    assert all(torch.equal(a, b) for a, b in zip(fresh.parameters(), mine.parameters()))
    assert torch.equal(fresh_opt.state_dict()["state"][0]["exp_avg"], opt.state_dict()["state"][0]["exp_avg"])
    with pytest.raises(RuntimeError, match="missing keys"):
        dsd.set_model_state_dict(fresh, {"0.weight": msd["0.weight"]})
    dsd.set_model_state_dict(fresh, dsd.get_model_state_dict(fresh), options=dsd.StateDictOptions(strict=False))
    dsd.set_optimizer_state_dict(fresh, fresh_opt, dsd.get_optimizer_state_dict(fresh, fresh_opt))


def test_dtensor_in_one_process(world_of_one):
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    d = dt.distribute_tensor(x, world_of_one, [dt.Shard(1)])
    assert d.shape == torch.Size([2, 3]) and d.placements == (dt.Shard(1),) and d.device_mesh == world_of_one
    assert torch.equal(dt.DTensor.from_local(d.to_local(), world_of_one, [dt.Shard(1)]).full_tensor(), x)
    assert torch.equal(d.redistribute(world_of_one, [dt.Replicate()]).to_local(), x)
    for f, g in ((dt.ones, torch.ones), (dt.zeros, torch.zeros), (dt.empty, torch.zeros)):
        assert torch.equal(f(2, 3, device_mesh=world_of_one, placements=[dt.Shard(0)]).full_tensor(), g(2, 3))
    assert torch.equal(dt.full((2,), 7.0, device_mesh=world_of_one).full_tensor(), torch.full((2,), 7.0))
    with pytest.raises(RuntimeError, match="mixed torch.Tensor and DTensor"):
        d + x
    assert world_of_one.get_group().ranks == [0] and world_of_one.get_local_rank() == 0


def test_what_msnb_cannot_shard_is_refused_by_name(world_of_one):
    d = dt.distribute_tensor(torch.ones(2, 2), world_of_one, [dt.Shard(0)])
    with pytest.raises(NotSupportedError, match=r"torch\.distributed\.tensor\.DTensor\.matmul is not supported"):
        d.matmul(d)
    for mod, name in ((dt, "distribute_module"), (tp, "loss_parallel"), (fsdp, "register_fsdp_forward_method"),
                      (checkpoint, "async_save")):
        with pytest.raises(NotSupportedError, match=f"{name} is not supported by msnb yet"):
            getattr(mod, name)
    with pytest.raises(AttributeError) as e:
        fsdp.no_such_thing  # noqa: B018
    assert not isinstance(e.value, NotSupportedError)
    with pytest.raises(NotImplementedError, match="ColwiseParallel on Conv2d"):
        tp.parallelize_module(torch.nn.Conv2d(1, 1, 1), world_of_one, tp.ColwiseParallel())
    with pytest.raises(NotImplementedError, match="HSDP"):
        fsdp.fully_shard(torch.nn.Linear(2, 2), mesh=DeviceMesh("cpu", [[0]], mesh_dim_names=("a", "b")))
    with pytest.raises(NotImplementedError, match="Partial"):
        d.redistribute(world_of_one, [dt.Partial()])
    import io
    sharded = torch.nn.Linear(2, 2)
    fsdp.fully_shard(sharded)
    with pytest.raises(NotImplementedError, match="pickling a DTensor.*full_state_dict=True"):
        torch.save(sharded.state_dict(), io.BytesIO())
    buf = io.BytesIO()
    torch.save(dsd.get_model_state_dict(sharded, options=dsd.StateDictOptions(full_state_dict=True)), buf)
    buf.seek(0)
    assert torch.equal(torch.load(buf, weights_only=True)["weight"], sharded.weight.detach())
    with pytest.raises(RuntimeError, match="mesh_shape"):
        init_device_mesh("cpu", (1, 1), mesh_dim_names=("a",))


def test_fsdp1_mixed_precision_computes_in_float16_and_keeps_float32_pieces(world_of_one):
    mine, theirs = _pair()
    policy = fsdp.MixedPrecision(param_dtype=torch.float16, buffer_dtype=torch.float16)
    assert [f for f in policy.__dataclass_fields__] == list(real_fsdp.MixedPrecision.__dataclass_fields__)
    model = fsdp.FullyShardedDataParallel(mine, mixed_precision=policy)
    x = _data()[0][0]
    out = model(torch.from_numpy(x))
    out.sum().backward()
    assert out.dtype == torch.float16 and mine[0].weight.dtype == torch.float32
    assert mine[0].weight.grad.dtype == torch.float32
    np.testing.assert_allclose(out.float().detach().numpy(), theirs(real.from_numpy(x)).detach().numpy(),
                               rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("kind", ["fully_shard", "parallelize_module"])
def test_compiled_sharded_modules_run_in_pynative_and_train_the_same(world_of_one, kind):
    """msnb graph mode must not trace the host-side collectives: the hooks keep these modules in PyNative."""
    def train(compiled):
        mine, _ = _pair()
        if kind == "fully_shard":
            fsdp.fully_shard(mine)
        else:
            tp.parallelize_module(mine, world_of_one, {"0": tp.ColwiseParallel(), "2": tp.RowwiseParallel()})
        _train(torch.compile(mine) if compiled else mine, torch, torch.optim.SGD(mine.parameters(), lr=0.1))
        return [p.detach().numpy().copy() for p in mine.parameters()]

    for a, b in zip(train(False), train(True)):
        np.testing.assert_array_equal(a, b)


def test_fsdp_wrap_policies_answer_as_pytorch(world_of_one):
    """The auto-wrap policies the pytorch/examples FSDP programs build (functools.partial of them) answer
    PyTorch's questions as PyTorch's do; ``wrap`` wraps only inside ``enable_wrap``."""
    import functools

    import torch.distributed.fsdp.wrap as real_wrap

    from msnb.adapter.torch.distributed.fsdp import wrap as mine
    cases = [(lib, lib.nn.Linear(30, 30), lib.nn.ModuleList([lib.nn.Linear(2, 2)]),
              lib.nn.MultiheadAttention(4, 2), lib.nn.ReLU()) for lib in (real, torch)]
    for (rl, *theirs), (ml, *ours) in zip(cases[:1], cases[1:]):
        for policy_of in (
                lambda w, nn: functools.partial(w.size_based_auto_wrap_policy, min_num_params=100),
                lambda w, nn: functools.partial(w.size_based_auto_wrap_policy, min_num_params=100,
                                                force_leaf_modules={nn.Linear}, exclude_wrap_modules=set()),
                lambda w, nn: functools.partial(w.transformer_auto_wrap_policy, transformer_layer_cls={nn.Linear}),
                lambda w, nn: functools.partial(w.lambda_auto_wrap_policy, lambda_fn=lambda m: isinstance(m, nn.ReLU)),
                lambda w, nn: w.ModuleWrapPolicy({nn.MultiheadAttention}),
                lambda w, nn: w.always_wrap_policy):
            p_real, p_mine = policy_of(real_wrap, rl.nn), policy_of(mine, ml.nn)
            for a, b in zip(theirs, ours):
                for recurse in (True, False):
                    for numel in (10, 1000):
                        assert p_mine(module=b, recurse=recurse, nonwrapped_numel=numel) == \
                            p_real(module=a, recurse=recurse, nonwrapped_numel=numel)
    lin = torch.nn.Linear(2, 2)
    assert mine.wrap(lin) is lin
    with mine.enable_wrap(wrapper_cls=fsdp.FullyShardedDataParallel):
        wrapped = mine.wrap(torch.nn.Linear(2, 2))
        with pytest.raises(NotImplementedError, match="nested autowrap"):
            with mine.enable_wrap(wrapper_cls=fsdp.FullyShardedDataParallel):
                pass
    assert isinstance(wrapped, fsdp.FullyShardedDataParallel)
    model = fsdp.FullyShardedDataParallel(torch.nn.Linear(2, 2), auto_wrap_policy=functools.partial(
        mine.size_based_auto_wrap_policy, min_num_params=1))
    assert model(torch.ones(1, 2)).shape == (1, 2)


def test_activation_checkpoint_wrapper_keeps_pytorch_names_values_and_gradients():
    """apply_activation_checkpointing as the pytorch/examples FSDP T5 programs call it: the same module
    tree, parameter names, state-dict keys, outputs and gradients as PyTorch's (msnb does not recompute)."""
    import functools

    import torch.distributed.algorithms._checkpoint.checkpoint_wrapper as real_cw

    from msnb.adapter.torch.distributed.algorithms._checkpoint import checkpoint_wrapper as cw
    got = {}
    for lib, mod in ((real, real_cw), (torch, cw)):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Sequential(lib.nn.Linear(4, 2)))
        with lib.no_grad():
            for i, p in enumerate(net.parameters()):
                p.copy_(lib.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (i + 1))
        plain = {k: v.clone() for k, v in net.state_dict().items()}
        wrapper = functools.partial(mod.checkpoint_wrapper, checkpoint_impl=mod.CheckpointImpl.NO_REENTRANT)
        mod.apply_activation_checkpointing(net, checkpoint_wrapper_fn=wrapper,
                                           check_fn=lambda m: isinstance(m, lib.nn.Linear))
        x = lib.linspace(-2.0, 2.0, 6).reshape(2, 3)
        out = net(x)
        out.pow(2).sum().backward()
        first = net[0]
        keys = net.load_state_dict(plain)
        dsd_keys = list((real_dsd if lib is real else dsd).get_model_state_dict(net))
        got[lib.__name__] = (repr(net).replace("torch.nn.modules.linear.", ""), [k for k, _ in net.named_parameters()],
                             list(net.state_dict()), [k for k, _ in first.named_parameters()],
                             first.weight is first._checkpoint_wrapped_module.weight, list(keys.missing_keys),
                             mod.CheckpointImpl.NO_REENTRANT.value, dsd_keys,
                             [out.detach().numpy()] + [p.grad.numpy() for p in net.parameters()])
    *mine, mine_values = got["msnb.adapter.torch"]
    *theirs, their_values = got["torch"]
    assert mine == theirs
    for a, b in zip(mine_values, their_values):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for lib, mod in ((real, real_cw), (torch, cw)):  # the examples' offload_to_cpu=False reaches forward in both
        with pytest.raises(TypeError, match="offload_to_cpu"):
            mod.checkpoint_wrapper(lib.nn.Linear(1, 1), offload_to_cpu=False)(lib.ones(1))
