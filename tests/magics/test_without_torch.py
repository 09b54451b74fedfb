"""With no PyTorch installed: plain cells fail as usual, magic cells still run."""

import json

CHILD = r"""
import json, sys
class NoTorch:
    '''Meta-path blocker: behave as if torch and torchvision were not installed.'''
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("torch", "torchvision"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoTorch())
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_line_magic("load_ext", "msnb")
plain = ip.run_cell("import torch")
magic = ip.run_cell("%%torch_on_ascend\nimport torch\nname = torch.__name__\n")
plain_again = ip.run_cell("import torch")
print(json.dumps({
    "plain_error": type(plain.error_in_exec).__name__,
    "magic_ok": magic.success, "name": ip.user_ns.get("name"),
    "plain_again_error": type(plain_again.error_in_exec).__name__,
}))
"""


def test_plain_cell_raises_module_not_found_magic_cell_uses_adapter(python):
    child = python("-c", CHILD)
    assert child.returncode == 0, child.stderr
    facts = json.loads(child.stdout.strip().splitlines()[-1])
    assert facts == {
        "plain_error": "ModuleNotFoundError",
        "magic_ok": True,
        "name": "msnb.adapter.torch",
        "plain_again_error": "ModuleNotFoundError",
    }
