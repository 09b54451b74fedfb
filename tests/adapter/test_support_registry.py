"""The support registry is generated from the adapter; the committed copy
must match what the adapter really exposes, and it feeds the analyzer."""

import json

from msnb.adapter import support


def test_committed_registry_matches_the_adapter():
    assert json.loads(support.REGISTRY_PATH.read_text()) == support.build_registry(), \
        "run: python -m msnb.adapter.support --write"


def test_registry_lists_core_names_and_partial_notes():
    reg = support.load_registry()
    for name in ("torch.tensor", "torch.Tensor.add_", "torch.nn.Conv2d", "torch.nn.functional.cross_entropy",
                 "torch.optim.SGD", "torch.utils.data.DataLoader", "torchvision.transforms.Resize",
                 "torch.autograd.grad", "torch.save"):
        assert name in reg, name
    assert reg["torch.from_numpy"].status == "partial" and reg["torch.from_numpy"].note
    # names the adapter blocks are not listed
    assert "torch.Tensor.chalf" not in reg and "torch.fft" not in reg


def test_markdown_lists_every_entry():
    reg = support.build_registry()
    md = support.to_markdown(reg)
    assert md.count("\n| `") == len(reg["entries"])
