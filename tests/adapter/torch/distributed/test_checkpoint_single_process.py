"""torch.distributed.checkpoint save / load in one process, against real PyTorch doing the same.

Without a process group both save and load in one process (PyTorch warns so,
as msnb).  The on-disk formats differ (msnb's JSON + weights-only files,
PyTorch's pickles): what must agree is the state a round trip gives, the
metadata keys and chunks, the errors, and that nothing in msnb's files is
ever run."""

from __future__ import annotations

import json
import os
import pickle
import warnings

import numpy as np
import pytest
import torch as real
import torch.distributed.checkpoint as real_dcp

import msnb.adapter.torch as torch
from msnb.adapter.torch._missing import NotSupportedError
from msnb.adapter.torch.distributed import checkpoint as dcp
from msnb.adapter.torch.distributed.checkpoint import default_planner, filesystem, stateful
from msnb.adapter.torch.distributed.tensor import Replicate, Shard
from msnb.adapter.torch.distributed.tensor import parallel as tp

W = np.arange(6, dtype=np.float32).reshape(2, 3)


def _nested(lib, w, b, step, name):
    return {"model": {"w": lib.tensor(w), "b": lib.tensor(b)}, "step": step, "lst": [lib.zeros(2) + step, step],
            "name": name, "cfg": {"betas": (0.9, 0.99), "lr": 1e-3, "off": None}}


def _plain(sd):
    """Nested values as numpy / Python, comparable across the two libraries."""
    if isinstance(sd, dict):
        return {k: _plain(v) for k, v in sd.items()}
    if isinstance(sd, (list, tuple)):
        return type(sd)(_plain(v) for v in sd)
    return sd.detach().numpy().tolist() if hasattr(sd, "detach") else sd


@pytest.fixture
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _both(tmp_path, save_sd, load_sd, **load_kw):
    """Save then load with each library; the loaded state dicts (as plain data) and the targets' tensors."""
    out = {}
    for lib, mod, tag in ((real, real_dcp, "real"), (torch, dcp, "msnb")):
        src, dst = save_sd(lib), load_sd(lib)
        meta = mod.save(src, checkpoint_id=tmp_path / tag)
        keep = dst["model"]["w"]
        mod.load(dst, checkpoint_id=tmp_path / tag, **load_kw)
        out[tag] = (_plain(dst), dst["model"]["w"] is keep, meta)
    return out


def test_round_trip_fills_the_state_dict_in_place_as_pytorch(tmp_path, quiet):
    got = _both(tmp_path, lambda lib: _nested(lib, W, np.ones(2, np.float32), 3, "x"),
                lambda lib: _nested(lib, W * 0, np.zeros(2, np.float32), 0, "y"))
    assert got["msnb"][0] == got["real"][0]
    assert got["msnb"][0]["step"] == 3 and got["msnb"][0]["cfg"]["betas"] == (0.9, 0.99)
    assert got["msnb"][1] and got["real"][1]  # the same tensor object, filled
    mine, theirs = got["msnb"][2].state_dict_metadata, got["real"][2].state_dict_metadata
    assert sorted(mine) == sorted(theirs)
    for k, v in theirs.items():
        if hasattr(v, "chunks"):
            assert list(mine[k].size) == list(v.size)
            assert [(list(c.offsets), list(c.sizes)) for c in mine[k].chunks] == \
                [(list(c.offsets), list(c.sizes)) for c in v.chunks]
        else:
            assert type(mine[k]).__name__ == type(v).__name__ == "BytesStorageMetadata"
    assert sorted(os.listdir(tmp_path / "msnb")) == sorted(os.listdir(tmp_path / "real")) == \
        [".metadata", "__0_0.distcp"]


def test_model_and_adam_state_round_trip_as_pytorch(tmp_path, quiet):
    """A trained Linear + Adam saved and loaded into a fresh pair: weights and exp_avg as PyTorch's."""
    res = {}
    for lib, mod, tag in ((real, real_dcp, "real"), (torch, dcp, "msnb")):
        net = lib.nn.Linear(3, 2)
        with lib.no_grad():
            net.weight.copy_(lib.tensor(W))
            net.bias.fill_(0.5)
        opt = lib.optim.Adam(net.parameters(), lr=0.1)
        net(lib.ones(4, 3)).pow(2).sum().backward()
        opt.step()
        mod.save({"model": net.state_dict(), "optim": opt.state_dict()}, checkpoint_id=tmp_path / tag)
        fresh = lib.nn.Linear(3, 2)
        fresh_opt = lib.optim.Adam(fresh.parameters(), lr=0.5)
        fresh(lib.ones(1, 3)).sum().backward()
        fresh_opt.step()  # state exists: DCP loads into it in place
        target = {"model": fresh.state_dict(), "optim": fresh_opt.state_dict()}
        mod.load(target, checkpoint_id=tmp_path / tag)
        fresh.load_state_dict(target["model"])
        fresh_opt.load_state_dict(target["optim"])
        res[tag] = (fresh.weight.detach().numpy(), fresh_opt.state_dict()["state"][0]["exp_avg"].numpy(),
                    fresh_opt.param_groups[0]["lr"])
    np.testing.assert_allclose(res["msnb"][0], res["real"][0], rtol=1e-6)
    np.testing.assert_allclose(res["msnb"][1], res["real"][1], rtol=1e-6)
    assert res["msnb"][2] == res["real"][2] == 0.1


def test_stateful_objects_are_called_as_pytorch_calls_them(tmp_path, quiet):
    def make(lib, base):
        class App(base):
            def __init__(self, v):
                self.v, self.calls = lib.full((2,), float(v)), []

            def state_dict(self):
                self.calls.append("state_dict")
                return {"v": self.v}

            def load_state_dict(self, sd):
                self.calls.append("load_state_dict")
                self.v = sd["v"]
        return App

    calls = {}
    for lib, mod, base in ((real, real_dcp, real_dcp.stateful.Stateful), (torch, dcp, stateful.Stateful)):
        App = make(lib, base)
        a, b = App(7), App(0)
        assert isinstance(a, base)
        mod.save({"app": a}, checkpoint_id=tmp_path / lib.__name__)
        mod.load({"app": b}, checkpoint_id=tmp_path / lib.__name__)
        calls[lib.__name__] = (a.calls, b.calls, b.v.tolist())
    assert calls["msnb.adapter.torch"] == calls["torch"] == (["state_dict"], ["state_dict", "load_state_dict"],
                                                            [7.0, 7.0])


def test_missing_keys_and_shape_mismatches_fail_as_pytorch(tmp_path, quiet):
    for lib, mod in ((real, real_dcp), (torch, dcp)):
        where = tmp_path / lib.__name__
        mod.save({"w": lib.zeros(2, 3)}, checkpoint_id=where)
        for bad in ({"nope": lib.zeros(1)}, {"w": lib.zeros(3, 3)}):
            with pytest.raises(BaseException) as e:
                mod.load(bad, checkpoint_id=where)
            assert type(e.value).__name__ == "CheckpointException" and not isinstance(e.value, Exception)
        partial = {"w": lib.ones(2, 3), "nope": lib.ones(1)}
        mod.load(partial, checkpoint_id=where, planner=mod.DefaultLoadPlanner(allow_partial_load=True))
        assert partial["w"].sum().item() == 0 and partial["nope"].item() == 1
    with pytest.raises(dcp.CheckpointException, match="Missing key in checkpoint state_dict: nope"):
        dcp.load({"nope": torch.zeros(1)}, checkpoint_id=tmp_path / "msnb.adapter.torch")


def test_no_process_group_warns_as_pytorch_and_the_old_names_warn_deprecated(tmp_path):
    for mod, tag in ((real_dcp, "real"), (dcp, "msnb")):
        with pytest.warns(UserWarning, match="assuming the intent is to save in a single process"):
            mod.save({"a": (torch if tag == "msnb" else real).ones(1)}, checkpoint_id=tmp_path / tag)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="Default process group has not been initialized"):
                mod.save_state_dict({"a": (torch if tag == "msnb" else real).ones(1)},
                                    mod.FileSystemWriter(tmp_path / tag))  # the old names need a group ...
            mod.save_state_dict({"a": (torch if tag == "msnb" else real).ones(1) * 2},
                                mod.FileSystemWriter(tmp_path / tag), planner=mod.DefaultSavePlanner(),
                                no_dist=True)  # ... or no_dist=True
            target = {"a": (torch if tag == "msnb" else real).zeros(1)}
            mod.load_state_dict(target, mod.FileSystemReader(tmp_path / tag), planner=mod.DefaultLoadPlanner(),
                                no_dist=True)
        assert {w.category for w in seen} >= {FutureWarning} and target["a"].item() == 2.0
    assert dcp.FileSystemReader(tmp_path / "msnb").read_metadata().state_dict_metadata["a"].size == torch.Size([1])
    assert filesystem.FileSystemWriter is dcp.FileSystemWriter
    assert default_planner.DefaultSavePlanner is dcp.DefaultSavePlanner


def _saved(tmp_path):
    where = tmp_path / "ck"
    dcp.save({"w": torch.tensor(W), "n": 4}, checkpoint_id=where, no_dist=True)
    return where


def _untouched(where, match):
    target = {"w": torch.zeros(2, 3), "n": 0}
    with pytest.raises(dcp.CheckpointException, match=match) as e:
        dcp.load(target, checkpoint_id=where, no_dist=True)
    assert "\n" not in str(e.value)
    assert target["n"] == 0 and target["w"].sum().item() == 0  # nothing changed


def test_a_truncated_or_damaged_file_is_one_line_and_changes_nothing(tmp_path):
    where = _saved(tmp_path)
    data = where / "__0_0.distcp"
    raw = data.read_bytes()
    data.write_bytes(raw[: len(raw) // 2])
    _untouched(where, "__0_0.distcp is damaged or truncated")
    data.write_bytes(raw)
    meta = (where / ".metadata").read_text()
    (where / ".metadata").write_text(meta[: len(meta) // 2])
    _untouched(where, r"damaged \.metadata")
    (where / ".metadata").write_text(meta)
    data.unlink()
    _untouched(where, "__0_0.distcp is missing")


def test_loading_never_runs_code_from_the_files(tmp_path):
    """A data file that unpickles to a call (its checksum made to match) is refused before it runs."""
    where = _saved(tmp_path)
    flag = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {flag}",))

    evil = pickle.dumps({"t0": Evil()})
    (where / "__0_0.distcp").write_bytes(evil)
    info = json.loads((where / ".metadata").read_text())
    import hashlib
    info["files"]["__0_0.distcp"] = hashlib.sha256(evil).hexdigest()
    (where / ".metadata").write_text(json.dumps(info))
    _untouched(where, "__0_0.distcp cannot be read")
    assert not flag.exists()


def test_pytorch_written_checkpoints_are_refused_by_name(tmp_path, quiet):
    real_dcp.save({"w": real.zeros(2)}, checkpoint_id=tmp_path / "real")
    with pytest.raises(NotSupportedError, match="distributed checkpoint written by PyTorch .* not supported by msnb"):
        dcp.load({"w": torch.zeros(2)}, checkpoint_id=tmp_path / "real")
    with pytest.raises(NotSupportedError, match="save of a object value"):
        dcp.save({"o": object()}, checkpoint_id=tmp_path / "o", no_dist=True)
    with pytest.raises(NotSupportedError, match="async_save is not supported"):
        dcp.async_save  # noqa: B018


def test_dtensor_and_sharded_state_in_a_world_of_one(tmp_path, world_of_one):
    """A fully_shard model's DTensor state dict (and Adam's DTensor state) round-trips."""
    from msnb.adapter.torch.distributed.checkpoint.state_dict import _init_optim_state, get_state_dict, \
        set_state_dict
    from msnb.adapter.torch.distributed.fsdp import fully_shard
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    fully_shard(model, mesh=world_of_one)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(2, 3)).sum().backward()
    opt.step()
    msd, osd = get_state_dict(model, opt)
    assert type(osd["state"]["0.weight"]["exp_avg"]).__name__ == "DTensor"
    dcp.save({"model": msd, "optim": osd}, checkpoint_id=tmp_path / "ck")
    torch.manual_seed(1)
    other = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    fully_shard(other, mesh=world_of_one)
    other_opt = torch.optim.Adam(other.parameters(), lr=0.1)
    _init_optim_state(other_opt)
    assert len(other_opt.state) == 4 and all(p.grad is None for p in other.parameters())
    m2, o2 = get_state_dict(other, other_opt)
    target = {"model": m2, "optim": o2}
    dcp.load(target, checkpoint_id=tmp_path / "ck")
    set_state_dict(other, other_opt, model_state_dict=target["model"], optim_state_dict=target["optim"])
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), other.parameters()))
    assert torch.equal(other_opt.state_dict()["state"][0]["exp_avg"], opt.state_dict()["state"][0]["exp_avg"])


def test_init_optim_state_matches_pytorch():
    from msnb.adapter.torch.distributed.checkpoint.state_dict import _init_optim_state
    from torch.distributed.checkpoint.state_dict import _init_optim_state as real_init
    got = {}
    for lib, init in ((real, real_init), (torch, _init_optim_state)):
        net = lib.nn.Linear(2, 2)
        with lib.no_grad():
            net.weight.fill_(1.0)
        opt = lib.optim.AdamW(net.parameters(), lr=0.1, weight_decay=0.5)
        init(opt)
        st = opt.state_dict()["state"][0]
        got[lib.__name__] = (net.weight.tolist(), float(st["step"]), st["exp_avg"].tolist(), net.weight.grad,
                             opt.param_groups[0]["lr"])
    assert got["torch"] == got["msnb.adapter.torch"]


def test_prepare_module_styles_in_a_world_of_one_print_and_check_as_pytorch(world_of_one):
    import torch.distributed.tensor as real_dt
    import torch.distributed.tensor.parallel as real_tp
    for mine, theirs in (
            (tp.PrepareModuleInput(input_layouts=Shard(1), desired_input_layouts=Replicate()),
             real_tp.PrepareModuleInput(input_layouts=real_dt.Shard(1), desired_input_layouts=real_dt.Replicate())),
            (tp.PrepareModuleInput(input_layouts=(Shard(0), None), desired_input_layouts=(Replicate(), None),
                                   input_kwarg_layouts={"m": Shard(0)}, desired_input_kwarg_layouts={"m": Shard(0)},
                                   use_local_output=True),
             real_tp.PrepareModuleInput(input_layouts=(real_dt.Shard(0), None),
                                        desired_input_layouts=(real_dt.Replicate(), None),
                                        input_kwarg_layouts={"m": real_dt.Shard(0)},
                                        desired_input_kwarg_layouts={"m": real_dt.Shard(0)}, use_local_output=True)),
            (tp.PrepareModuleOutput(output_layouts=(Shard(0),), desired_output_layouts=(Replicate(),),
                                    use_local_output=False),
             real_tp.PrepareModuleOutput(output_layouts=(real_dt.Shard(0),),
                                         desired_output_layouts=(real_dt.Replicate(),), use_local_output=False)),
            (tp.PrepareModuleInputOutput(input_layouts=Shard(0), desired_input_layouts=Replicate(),
                                         output_layouts=Replicate(), desired_output_layouts=Shard(0)),
             real_tp.PrepareModuleInputOutput(input_layouts=real_dt.Shard(0),
                                              desired_input_layouts=real_dt.Replicate(),
                                              output_layouts=real_dt.Replicate(),
                                              desired_output_layouts=real_dt.Shard(0)))):
        assert repr(mine) == repr(theirs)
    for make in (lambda m: m.PrepareModuleInput(input_layouts=(Shard(0),), desired_input_layouts=()),
                 lambda m: m.PrepareModuleOutput(output_layouts=(Shard(0),), desired_output_layouts=())):
        with pytest.raises(AssertionError, match="should have same length"):
            make(tp)
        with pytest.raises(AssertionError, match="should have same length"):
            make(real_tp)

    class Two(torch.nn.Module):
        def forward(self, a, b=None, m=None):
            return a, b, m

    mod = tp.parallelize_module(Two(), world_of_one, tp.PrepareModuleInput(
        input_layouts=(Shard(0), None), desired_input_layouts=(Replicate(), None),
        input_kwarg_layouts={"m": Shard(0)}, desired_input_kwarg_layouts={"m": Replicate()}))
    a, b, m = mod(torch.ones(2), torch.zeros(1), m=torch.full((3,), 2.0))
    assert type(a).__name__ == type(m).__name__ == "DTensor" and a.placements == (Replicate(),)
    assert torch.equal(b, torch.zeros(1)) and torch.equal(m.full_tensor(), torch.full((3,), 2.0))
    with pytest.raises(ValueError, match="module inputs and input_layouts should have same length"):
        tp.parallelize_module(Two(), world_of_one, tp.PrepareModuleInput(
            input_layouts=Shard(0), desired_input_layouts=Replicate()))(torch.ones(2), torch.ones(2))


def test_forward_pre_hooks_with_kwargs_run_as_pytorch():
    """``register_forward_pre_hook(with_kwargs=True)`` / ``register_forward_hook(with_kwargs=True)``
    (PrepareModuleInput's keyword form relies on them)."""
    seen = {}
    for lib in (real, torch):
        class Scale(lib.nn.Module):
            def forward(self, x, k=1.0):
                return x * k

        m = Scale()
        m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {**kwargs, "k": kwargs["k"] * 10}),
                                    with_kwargs=True)
        m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["k"], with_kwargs=True)
        bad = Scale()
        bad.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
        with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of"):
            bad(lib.ones(1), k=2.0)
        seen[lib.__name__] = m(lib.ones(2), k=2.0).tolist()
    assert seen["torch"] == seen["msnb.adapter.torch"] == [40.0, 40.0]
