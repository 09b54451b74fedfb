"""``torch.save`` writes PyTorch's pickle even when ``dill`` is imported.

dill (MindSpore's dataset package imports it) adds its own savers to the
pure-Python pickler msnb's ``torch.save`` builds on; a checkpoint that names
``dill._dill`` globals is refused by real PyTorch's ``torch.load`` (its
weights-only unpickler, and any reader without dill).  The word-language-model
example saves its whole model and loads it back under ``safe_globals``.
Real PyTorch's import turns dill's savers off again, so the save runs in a
child process that never imports it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile

import torch as real

CHILD = textwrap.dedent("""
    import pickle, sys
    import mindspore.dataset  # imports dill, which extends the pure-Python pickler
    assert pickle._Pickler.dispatch[type].__module__ == "dill._dill"
    import msnb.adapter.torch as mt
    mt.save({"kind": type(None), "fn": len, "w": mt.ones(2, 3), "nested": [(1.5, "a"), {None}]}, sys.argv[1])
    mt.save({"layer": mt.nn.Linear(2, 2).state_dict(), "step": {"n": 3}}, sys.argv[2])
""")


def test_checkpoint_names_no_dill_global_and_real_torch_reads_it(tmp_path):
    path, weights = tmp_path / "ck.pt", tmp_path / "weights.pt"
    env = dict(os.environ, GLOG_v="3")
    p = subprocess.run([sys.executable, "-c", CHILD, str(path), str(weights)], capture_output=True, text=True,
                       timeout=600, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    assert b"dill" not in zipfile.ZipFile(path).read("ck/data.pkl")
    # dicts are pickled as dicts (not as a __builtin__.dict global the weights-only unpickler refuses)
    assert b"__builtin__\ndict" not in zipfile.ZipFile(weights).read("weights/data.pkl")
    assert real.load(weights, weights_only=True)["step"] == {"n": 3}
    back = real.load(path, weights_only=False)
    assert back["kind"] is type(None) and back["fn"] is len and back["nested"] == [(1.5, "a"), {None}]
    assert real.equal(back["w"], real.ones(2, 3))


def test_whole_module_loads_back_under_safe_globals(tmp_path):
    """``torch.save(model)`` then ``torch.load`` with the model's classes in ``safe_globals``
    (word_language_model): protocol 2's ``__builtin__ set`` is Python 3's ``builtins.set``."""
    import msnb.adapter.torch as mt
    path = tmp_path / "model.pt"
    mt.save(mt.nn.Sequential(mt.nn.Linear(2, 2), mt.nn.Dropout(0.1)), path)
    with mt.serialization.safe_globals([mt.nn.Sequential, mt.nn.Linear, mt.nn.Dropout]):
        back = mt.load(path)
    assert isinstance(back, mt.nn.Sequential) and tuple(back[0].weight.shape) == (2, 2) and back[1].p == 0.1
