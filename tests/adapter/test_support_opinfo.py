"""The registry's status comes from the OpInfo replay: a name with a failing
sample is ``partial`` and its note says which sample fails and why."""

from msnb.adapter import support


def test_a_failing_opinfo_sample_makes_a_name_partial_with_the_reason():
    results = {"torch.x": {"passed": 3, "failed": 1, "failures": ["x:function:float32 sample 2: grad differs"]},
               "torch.y": {"passed": 4, "failed": 0, "failures": []}}
    x = support._entry("torch.x", results)
    assert x["status"] == "partial" and x["opinfo"] == "3/4"
    assert "1 of 4 samples fail" in x["note"] and "grad differs" in x["note"]
    assert support._entry("torch.y", results) == {"status": "supported", "opinfo": "4/4"}
    assert support._entry("torch.z", results) == {"status": "supported"}


def test_committed_results_feed_the_registry():
    results = support.load_opinfo_results()
    reg = support.load_registry()
    assert results["summary"]["ops"]["evaluated"] > 500
    for name, r in results["names"].items():
        if name in reg:
            assert reg[name].opinfo == f"{r['passed']}/{r['passed'] + r['failed']}", name
            assert (reg[name].status == "supported") == (r["failed"] == 0 and name not in support.PARTIAL), name


def test_the_cli_prints_opinfo_pass_counts(capsys):
    assert support.main([]) == 0
    out = capsys.readouterr().out
    assert "OpInfo ops passing fully" in out and "ModuleInfos passing fully" in out
