"""Run by test_collectives.py on 2 workers: every collective, results to ``$OUT/rank<k>.json``.

Rank r contributes ``[r + 1, 2, 3 * r]`` (cast to each dtype); the test
computes what each op must give and compares."""

import json
import os
import sys

import torch
import torch.distributed as dist

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")
OPS = ("SUM", "AVG", "PRODUCT", "MIN", "MAX")


class Evil:
    """A class ``torch.load(weights_only=True)`` refuses: no rank may unpickle it."""


def main(out_dir):
    dist.init_process_group("hccl", init_method="env://")
    r, n = dist.get_rank(), dist.get_world_size()
    res = {"env": {k: os.environ[k] for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")},
           "rank": r, "world": n, "initialized": dist.is_initialized(), "all_reduce": {}}
    for dt in DTYPES:
        for op in OPS:
            t = torch.tensor([r + 1, 2, 3 * r]).to(getattr(torch, dt))
            try:
                dist.all_reduce(t, getattr(dist.ReduceOp, op))
                res["all_reduce"][f"{dt} {op}"] = [t.dtype == getattr(torch, dt), t.tolist()]
            except RuntimeError as e:
                res["all_reduce"][f"{dt} {op}"] = ["RuntimeError", str(e)]
    t = torch.full((2, 2), float(r)); dist.broadcast(t, src=1); res["broadcast"] = t.tolist()
    parts = [torch.zeros(2, dtype=torch.int64) for _ in range(n)]
    dist.all_gather(parts, torch.tensor([r, 10 * r])); res["all_gather"] = [p.tolist() for p in parts]
    out = torch.zeros(2 * n); dist.all_gather_into_tensor(out, torch.tensor([r, r + 0.5])); res["agit"] = out.tolist()
    o = torch.zeros(2); dist.reduce_scatter_tensor(o, torch.tensor([1., 2., 3., 4.]) * (r + 1)); res["rst"] = o.tolist()
    o = torch.zeros(1); dist.reduce_scatter(o, [torch.tensor([1.]) * (r + 1), torch.tensor([5.]) * (r + 1)],
                                            op=dist.ReduceOp.MAX); res["rs"] = o.tolist()
    gl = [torch.zeros(1) for _ in range(n)] if r == 0 else None
    dist.gather(torch.tensor([r + 7.]), gl, dst=0); res["gather"] = [g.tolist() for g in gl] if gl else None
    s = torch.zeros(2); dist.scatter(s, [torch.tensor([1., 2.]), torch.tensor([3., 4.])] if r == 0 else None, src=0)
    res["scatter"] = s.tolist()
    h = dist.all_reduce(t2 := torch.ones(3), async_op=True); res["async"] = [h.wait(), h.is_completed(), t2.tolist()]
    objs = [None] * n; dist.all_gather_object(objs, {"r": r, "t": torch.arange(2) * r})
    res["ago"] = [[o["r"], o["t"].tolist()] for o in objs]
    got = [None] * n if r == 0 else None
    dist.gather_object(("hi", r), got, dst=0); res["gather_object"] = got
    t = torch.tensor([r + 1.]); dist.reduce(t, dst=1, op=dist.ReduceOp.PRODUCT); res["reduce"] = t.tolist()
    lst = [{"lr": 0.1}, "x", 3] if r == 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=1); res["bol"] = lst
    try:
        dist.all_gather_object([None] * n, Evil() if r == 1 else 0)
        res["evil"] = "loaded"
    except Exception as e:  # noqa: BLE001
        res["evil"] = type(e).__name__
    g = dist.new_group([0, 1]); t = torch.tensor([r + 1.]); dist.all_reduce(t, group=g)
    res["group"] = [t.tolist(), dist.get_rank(g), dist.get_world_size(g)]
    solo = dist.new_group([1]); res["solo"] = dist.get_rank(solo)
    if r == 0:  # blocking send/recv, in program order, of different sizes and dtypes each way
        dist.send(torch.tensor([1., 2., 3.]), dst=1)
        buf = torch.zeros(2, dtype=torch.int64)
        src = dist.recv(buf, src=1)
    else:
        buf = torch.zeros(3)
        src = dist.recv(buf, src=0)
        dist.send(torch.tensor([7, 8]), dst=0)
    res["sendrecv"] = [src, buf.tolist()]
    mine, theirs = torch.full((2,), float(r)), torch.zeros(2)  # both ranks isend then irecv: one exchange
    works = [dist.isend(mine, 1 - r), dist.irecv(theirs, 1 - r)]
    res["exchange"] = [[w.wait() for w in works], all(w.is_completed() for w in works), theirs.tolist()]
    b = torch.zeros(1)
    for w in dist.batch_isend_irecv([dist.P2POp(dist.isend, torch.tensor([10. * r]), 1 - r),
                                     dist.P2POp(dist.irecv, b, 1 - r)]):
        w.wait()
    res["batch"] = b.tolist()
    outs = [torch.zeros(2) for _ in range(n)]
    dist.all_to_all(outs, [torch.tensor([10. * r + j, 100.]) for j in range(n)])
    res["a2a"] = [o.tolist() for o in outs]
    o = torch.zeros(2); dist.all_to_all_single(o, torch.tensor([2. * r, 2. * r + 1])); res["a2as"] = o.tolist()
    dist.barrier()
    with open(os.path.join(out_dir, f"rank{r}.json"), "w") as f:
        json.dump(res, f)
    dist.destroy_process_group()
    res_after = dist.is_initialized()
    assert res_after is False


if __name__ == "__main__":
    main(sys.argv[1])
