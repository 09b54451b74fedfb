"""Native MindSpore code keeps working beside the adapter, and accepts its tensors."""

import subprocess
import sys
import textwrap


def test_mindspore_script_same_before_and_after_adapter_use():
    script = textwrap.dedent("""
        import numpy as np, mindspore as ms
        def native():
            x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
            y = ms.ops.matmul(x, x.T) + 1
            return (type(y).__name__, y.shape, str(y.dtype), y.asnumpy().tolist(), repr(x.shape),
                    hasattr(ms.Tensor, 'requires_grad'), x.size)
        before = native()
        import msnb.adapter.torch as torch
        t = torch.ones(2, 3, requires_grad=True)
        (t * 2).sum().backward()
        after = native()
        assert before == after, (before, after)
        # MindSpore ops accept adapter tensors; the adapter wraps MindSpore results
        out = ms.ops.add(torch.ones(2), 1)
        assert out.asnumpy().tolist() == [2.0, 2.0]
        a = torch.cast_to_adapter_tensor(ms.Tensor(np.ones(2, np.float32)))
        assert isinstance(a, torch.Tensor) and repr(a) == 'tensor([1., 1.])'
        print("ok")
    """)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         env={"GLOG_v": "3", "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().endswith("ok")
