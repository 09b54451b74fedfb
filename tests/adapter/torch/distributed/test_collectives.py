"""torch.distributed collectives on 2 CPU workers (msrun) against values computed here.

One job runs every collective (MindSpore imports cost ~10 s per process);
rank r contributes ``[r + 1, 2, 3 * r]`` to each all_reduce."""

from __future__ import annotations

import numpy as np
import pytest

from ._job import ranks_of

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")
OPS = ("SUM", "AVG", "PRODUCT", "MIN", "MAX")
REDUCE = {"SUM": np.sum, "PRODUCT": np.prod, "MIN": np.min, "MAX": np.max}


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    return ranks_of("collectives_worker.py", tmp_path_factory)


def _expected(dtype: str, op: str):
    inputs = np.array([[1, 2, 0], [2, 2, 3]]).astype(dtype if dtype != "bool" else np.bool_)
    if op == "AVG":
        return (inputs.sum(0) / 2).tolist()
    if inputs.dtype == np.bool_:
        return {"SUM": inputs.any(0), "MAX": inputs.any(0), "PRODUCT": inputs.all(0), "MIN": inputs.all(0)}[op].tolist()
    return REDUCE[op](inputs, axis=0).astype(inputs.dtype).tolist()


def test_all_reduce_gives_each_op_and_dtype_on_every_rank(ranks):
    """SUM/AVG/PRODUCT/MIN/MAX for every dtype; AVG on integers is refused as PyTorch's gloo refuses it."""
    checked = 0
    for r in ranks:
        for dt in DTYPES:
            for op in OPS:
                got = r["all_reduce"][f"{dt} {op}"]
                if op == "AVG" and dt not in ("float32", "float64", "float16"):
                    assert got[0] == "RuntimeError" and "AVG" in got[1]
                else:
                    assert got == [True, _expected(dt, op)], (r["rank"], dt, op)
                checked += 1
        assert len(r["all_reduce"]) == len(DTYPES) * len(OPS)
    assert checked == 2 * 9 * 5


def test_rank_world_and_torchrun_environment(ranks):
    assert [r["rank"] for r in ranks] == [0, 1]
    for r in ranks:
        assert r["world"] == 2 and r["initialized"]
        env = r["env"]
        assert env["RANK"] == env["LOCAL_RANK"] == str(r["rank"]) and env["WORLD_SIZE"] == "2"
        assert env["MASTER_ADDR"] == "127.0.0.1" and int(env["MASTER_PORT"]) > 0


def test_broadcast_gather_scatter_family(ranks):
    r0, r1 = ranks
    for r in ranks:
        assert r["broadcast"] == [[1.0, 1.0], [1.0, 1.0]]
        assert r["all_gather"] == [[0, 0], [1, 10]]
        assert r["agit"] == [0.0, 0.5, 1.0, 1.5]
        assert r["async"] == [True, True, [2.0, 2.0, 2.0]]
        assert r["group"][0] == [3.0] and r["group"][2] == 2
    assert (r0["rst"], r1["rst"]) == ([3.0, 6.0], [9.0, 12.0])
    assert (r0["rs"], r1["rs"]) == ([2.0], [10.0])
    assert (r0["gather"], r1["gather"]) == ([[7.0], [8.0]], None)
    assert (r0["scatter"], r1["scatter"]) == ([1.0, 2.0], [3.0, 4.0])
    assert (r0["group"][1], r1["group"][1]) == (0, 1)
    assert (r0["solo"], r1["solo"]) == (-1, 0)
    assert (r0["reduce"], r1["reduce"]) == ([1.0], [2.0])  # only dst=1 receives the product


def test_objects_travel_with_torch_load_safety(ranks):
    """Objects arrive intact; an arbitrary class is refused on every rank (weights_only unpickler)."""
    for r in ranks:
        assert r["ago"] == [[0, [0, 0]], [1, [0, 1]]]
        assert r["bol"] == [{"lr": 0.1}, "x", 3]
        assert r["evil"] == "UnpicklingError"
    assert ranks[0]["gather_object"] == [["hi", 0], ["hi", 1]] and ranks[1]["gather_object"] is None


def test_point_to_point_and_all_to_all_built_on_all_gather(ranks):
    """send/recv (blocking, any dtype and size each way), isend+irecv on both ranks at once (one exchange),
    batch_isend_irecv, and all_to_all(_single): each rank gets exactly what its peer sent it."""
    r0, r1 = ranks
    assert (r0["sendrecv"], r1["sendrecv"]) == ([1, [7, 8]], [0, [1.0, 2.0, 3.0]])
    assert (r0["exchange"], r1["exchange"]) == ([[True, True], True, [1.0, 1.0]], [[True, True], True, [0.0, 0.0]])
    assert (r0["batch"], r1["batch"]) == ([10.0], [0.0])
    for k, r in enumerate(ranks):  # rank i's input j is [10 i + j, 100]
        assert r["a2a"] == [[10.0 * i + k, 100.0] for i in (0, 1)]
        assert r["a2as"] == [0.0 + k, 2.0 + k]
