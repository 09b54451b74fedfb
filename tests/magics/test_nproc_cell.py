"""``%%torch_on_ascend --nproc 2``: the cell runs on 2 msrun workers, each line prefixed ``[rank k]``
(like ipyparallel's ``%%px``); a failing rank ends every rank and fails the cell with its traceback shown."""

import pytest
from IPython.core.error import UsageError

from msnb.runtime import launch as launch_module
from msnb.runtime.launch import WorkersFailed

CELL = ("%%torch_on_ascend --nproc 2\n"
        "import torch, torch.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "t = torch.tensor([float(dist.get_rank() + 1)])\n"
        "dist.all_reduce(t)\n"
        "print('sum', t.item(), 'of', dist.get_world_size(), type(t).__module__)\n")


def test_a_cell_runs_on_two_workers_with_rank_prefixes(run, capfd):
    run(CELL)
    out = capfd.readouterr().out
    for k in (0, 1):
        assert f"[rank {k}] sum 3.0 of 2 msnb.adapter.torch._tensor" in out, out


def test_one_failing_rank_fails_the_cell_and_shows_that_ranks_traceback(run, capfd):
    result = run("%%torch_on_ascend --nproc 2\n"
                 "import os\n"
                 "def step():\n"
                 "    if os.environ['RANK'] == '1':\n"
                 "        raise ValueError('rank 1 broke')\n"
                 "step()\n", ok=False)
    assert isinstance(result.error_in_exec, WorkersFailed)
    printed = capfd.readouterr()
    text = printed.out + printed.err
    assert "[rank 1] ValueError: rank 1 broke" in text, text
    assert "line 5, in step" in text  # the cell's own line numbers (line 1 is the magic)
    assert "rank 1 exited with code 1" in text


def test_an_interrupt_ends_the_workers_and_reaches_the_kernel(run, monkeypatch):
    """The launcher ends every rank on KeyboardInterrupt and returns 130 (tests/adapter/torch/distributed
    checks that no process is left); the cell then fails with KeyboardInterrupt."""
    monkeypatch.setattr(launch_module, "launch_source", lambda *a, **k: 130)
    result = run("%%torch_on_ascend --nproc 2\nprint('hi')\n", ok=False)
    assert isinstance(result.error_in_exec, KeyboardInterrupt)


def test_nproc_is_for_cells_and_at_least_one(ip):
    with pytest.raises(UsageError, match="applies to one cell"):
        ip.run_line_magic("torch_on_ascend", "--nproc 2")
    with pytest.raises(UsageError, match="at least 1"):
        ip.run_cell_magic("torch_on_ascend", "--nproc 0", "print(1)\n")
    with pytest.raises(UsageError, match="cannot be combined"):
        ip.run_cell_magic("torch_on_ascend", "--nproc 2 --profile", "print(1)\n")
