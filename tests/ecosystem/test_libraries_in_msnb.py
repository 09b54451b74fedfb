"""Libraries people import next to torch (einops, matplotlib, sklearn,
torchmetrics, tqdm) work inside msnb: they import
``torch`` themselves, so the check runs a script under ``msnb exec`` (where
``import torch`` is msnb's adapter), and each library's result is compared
with what the script computes by hand."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent('''
    import numpy as np
    import torch
    assert torch.__version__.endswith("+msnb"), torch.__version__
    x = torch.arange(24.0).reshape(2, 3, 4)

    import einops
    r = einops.rearrange(x, "b c h -> b (c h)")
    assert type(r) is torch.Tensor and tuple(r.shape) == (2, 12)
    assert np.array_equal(einops.reduce(x, "b c h -> b", "mean").numpy(), x.numpy().mean((1, 2)))
    assert np.array_equal(einops.repeat(x[0, 0], "h -> h k", k=2).numpy(), np.repeat(x.numpy()[0, 0, :, None], 2, 1))
    print("einops ok")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    line, = plt.plot(torch.arange(5.0) ** 2)
    assert list(line.get_ydata()) == [0.0, 1.0, 4.0, 9.0, 16.0]
    im = plt.imshow(torch.rand(3, 8, 6).permute(1, 2, 0))
    assert im.get_array().shape == (8, 6, 3)
    print("matplotlib ok")

    from sklearn.metrics import accuracy_score, confusion_matrix
    pred, true = torch.tensor([1, 0, 1, 1]), torch.tensor([1, 1, 1, 0])
    assert accuracy_score(true.numpy(), pred.numpy()) == 0.5
    assert confusion_matrix(true.numpy(), pred.numpy()).tolist() == [[0, 1], [1, 2]]
    print("sklearn ok")

    # torchmetrics reaches into torch internals (torch._C._log_api_usage_once, get_default_device,
    # are_deterministic_algorithms_enabled, Tensor.is_mps, bincount); sklearn is the oracle
    import torchmetrics
    from sklearn.metrics import balanced_accuracy_score
    logits = torch.tensor([[2.0, 0.1, -1.0], [0.2, 0.3, 0.1], [-1.0, 3.0, 0.0], [0.5, 0.4, 2.0], [1.0, 0.0, 0.0]])
    target = torch.tensor([0, 2, 1, 2, 1])
    p_np, t_np = logits.argmax(1).numpy(), target.numpy()
    acc = torchmetrics.Accuracy(task="multiclass", num_classes=3).to("cpu")
    acc.update(logits[:2], target[:2])
    acc.update(logits[2:], target[2:])
    got = acc.compute()
    assert type(got) is torch.Tensor and abs(got.item() - accuracy_score(t_np, p_np)) < 1e-6, got
    macro = torchmetrics.Accuracy(task="multiclass", num_classes=3, average="macro")(logits, target)
    assert abs(macro.item() - balanced_accuracy_score(t_np, p_np)) < 1e-6, macro
    for deterministic in (False, True):  # torchmetrics counts with bincount or with scatter_add by this flag
        torch.use_deterministic_algorithms(deterministic)
        cm = torchmetrics.ConfusionMatrix(task="multiclass", num_classes=3)(logits, target)
        assert cm.dtype == torch.int64 and cm.tolist() == confusion_matrix(t_np, p_np, labels=[0, 1, 2]).tolist()
    torch.use_deterministic_algorithms(False)
    norm = torchmetrics.ConfusionMatrix(task="multiclass", num_classes=3, normalize="true")(logits, target)
    assert np.allclose(norm.numpy(), confusion_matrix(t_np, p_np, labels=[0, 1, 2], normalize="true"))
    probs, labels = torch.tensor([0.9, 0.2, 0.7, 0.4]), torch.tensor([1, 0, 0, 0])
    assert torchmetrics.Accuracy(task="binary")(probs, labels).item() == 0.75
    assert torchmetrics.ConfusionMatrix(task="binary")(probs, labels).tolist() == [[2, 1], [0, 1]]
    print("torchmetrics ok")

    from tqdm import tqdm
    assert [int(v) for v in tqdm(torch.arange(3), disable=True)] == [0, 1, 2]
    print("tqdm ok")

''')


def test_ecosystem_libraries_run_on_msnb_tensors(tmp_path):
    script = tmp_path / "eco.py"
    script.write_text(SCRIPT)
    msnb = Path(sys.executable).with_name("msnb")
    env = dict(os.environ, MPLBACKEND="Agg", GLOG_v="3")
    p = subprocess.run([str(msnb), "exec", str(script)], capture_output=True, text=True, timeout=600, env=env)
    out = p.stdout
    for lib in ("einops", "matplotlib", "sklearn", "torchmetrics", "tqdm"):
        assert f"{lib} ok" in out, f"{lib} failed under msnb:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
    assert p.returncode == 0, p.stderr[-3000:]
