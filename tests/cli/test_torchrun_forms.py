"""torchrun's command line in three places: ``msnb run --nproc-per-node N SCRIPT``, ``msnb exec -m
torch.distributed.run`` (and ``msnb exec torchrun``), all on msnb's msrun launcher."""

from __future__ import annotations

import os

import pytest

from msnb.cli import build_parser, main
from msnb.runtime.launch import msrun_command

WORKER = """\
import os, sys, torch, torch.distributed as dist
from msnb.runtime.context import active
dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
print("rank", os.environ["RANK"], "local", os.environ["LOCAL_RANK"], "world", os.environ["WORLD_SIZE"],
      "sum", t.item(), "mode", active().mode, "args", *sys.argv[1:])
"""


def _script(tmp_path):
    path = tmp_path / "job.py"
    path.write_text(WORKER)
    return str(path)


def test_run_takes_torchrun_flags_in_both_spellings():
    for flags in (["--nproc-per-node", "2", "--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.1",
                   "--master-port", "29500"],
                  ["--nproc_per_node", "2", "--nnodes", "2:2", "--node_rank", "1", "--master_addr", "10.0.0.1",
                   "--master_port", "29500"]):
        args = build_parser().parse_args(["run", *flags, "train.py", "--lr", "0.1"])
        assert (args.nproc, args.nnodes, args.node_rank, args.master_addr, args.master_port) == \
            (2, 2, 1, "10.0.0.1", 29500)
        assert (args.target, args.args) == ("train.py", ["--lr", "0.1"])


def test_exec_reads_module_and_torchrun_spellings():
    args = build_parser().parse_args(["exec", "--mode", "graph", "-m", "torch.distributed.run", "--nproc-per-node",
                                      "2", "train.py", "--lr", "1"])
    assert args.module == ["torch.distributed.run", "--nproc-per-node", "2", "train.py", "--lr", "1"]
    assert args.mode == "graph"


def test_a_second_machine_gets_msruns_global_worker_count_and_node_rank(tmp_path):
    cmd = msrun_command("train.py", ["--lr", "1"], 4, 29500, str(tmp_path), nnodes=2, node_rank=1,
                        master_addr="10.0.0.1")
    assert {"--worker_num=8", "--local_worker_num=4", "--node_rank=1", "--master_addr=10.0.0.1",
            "--master_port=29500"} <= set(cmd)
    assert cmd[-3:] == [os.path.abspath("train.py"), "--lr", "1"]


def test_bad_torchrun_input_exits_2_with_one_line(tmp_path, capsys):
    script = _script(tmp_path)
    cases = [(["--nproc-per-node", "2", str(tmp_path / "nope.py")], "no such file"),
             (["--standalone", "--nnodes", "2", script], "--standalone runs on one machine"),
             (["--nnodes", "2", "--node-rank", "2", "--master-port", "29500", script], "--node-rank must be in"),
             (["--nnodes", "2", script], "needs --master-port")]
    for argv, words in cases:
        assert main(["run", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("msnb run: ") and words in err, (argv, err)


def test_msnb_run_hands_a_py_script_and_torchruns_flags_to_the_launcher(monkeypatch):
    """The launch itself is run end to end by the ``-m torch.distributed.run`` test below (same code)."""
    from msnb.runtime import launch
    seen = []
    monkeypatch.setattr(launch, "launch",
                        lambda script, args, nproc, **kw: seen.append((script, args, nproc, kw)) or 0)
    assert main(["run", "--nproc-per-node", "2", "--standalone", "--mode", "graph", "train.py", "--lr", "0.5"]) == 0
    (script, args, nproc, kw), = seen
    assert (script, args, nproc, kw["nnodes"], kw["exec_options"]) == ("train.py", ["--lr", "0.5"], 2, 1,
                                                                       ["--mode", "graph"])


def test_exec_m_torch_distributed_run_passes_exec_flags_to_the_workers(tmp_path, capfd):
    code = main(["exec", "--mode", "graph", "-m", "torch.distributed.run", "--nproc_per_node", "2",
                 _script(tmp_path), "x"])
    out = capfd.readouterr().out
    assert code == 0, out
    for k in (0, 1):
        assert f"[rank {k}] rank {k} local {k} world 2 sum 3.0 mode graph args x" in out, out


def test_exec_torchrun_is_torch_distributed_run(tmp_path, monkeypatch):
    """``msnb exec torchrun ...`` (no file named torchrun here) runs msnb's torch.distributed.run."""
    from msnb.runtime import torchrun
    seen = []
    monkeypatch.setattr(torchrun, "run", lambda args, command, flags: seen.append((args, command, flags)) or 3)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:  # torchrun exits with the job's code, through msnb exec
        main(["exec", "torchrun", "--nproc_per_node", "2", "train.py", "--lr", "1"])
    assert stop.value.code == 3
    (args, command, flags), = seen
    assert (command, args.nproc, args.script, args.args) == ("torchrun", 2, "train.py", ["--lr", "1"])
    assert flags[:2] == ["--mode", "pynative"]
