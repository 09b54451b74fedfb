"""Graph-mode rules word each finding for the compiler at hand: msnb's graph
mode records ``forward`` while it runs and replays it (a host read makes the
module run in PyNative; a Python side effect stops after the recorded
calls), MindSpore's ``@ms.jit`` parses the source (syntax limits).  The
rules' own VALID / INVALID examples check positions and severities; these
check what the findings say and where each compiler's checks stop."""

from __future__ import annotations

from msnb.analyzer import Severity, analyze, has_blocking

GRAPH_RULES = ["MSN501", "MSN502", "MSN503", "MSN504", "MSN511"]
HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport mindspore as ms\n"


def _graph(src: str, rules=GRAPH_RULES):
    return analyze(HEAD + src, mode="graph", rules=rules, registry={})


def _module(body: str, prelude: str = "") -> str:
    lines = "".join(f"        {ln}\n" for ln in body.splitlines())
    return f"{prelude}class Net(nn.Module):\n    def forward(self, x):\n{lines}        return x\n"


def _jit(body: str) -> str:
    lines = "".join(f"    {ln}\n" for ln in body.splitlines())
    return f"@ms.jit\ndef step(x: torch.Tensor):\n{lines}    return x\n"


def test_host_reads_in_forward_say_the_module_falls_back():
    for body in ("s = x.sum().item()", "v = x.tolist()", "if x.mean() > 0:\n    x = -x", "b = bool(x)",
                 "print(x)", "s = f'{x.sum():.3f}'"):
        (f,) = _graph(_module(body))
        assert f.rule in ("MSN501", "MSN502") and f.severity is Severity.WARNING
        assert "runs in PyNative" in f.message and "still compiled" in f.message, f.message
        assert "fallback" not in f.why.lower() or "msnb" in f.why


def test_same_constructs_under_ms_jit_keep_the_compiler_wording():
    for body, rule in (("s = x.sum().item()", "MSN502"), ("if x.mean() > 0:\n    x = -x", "MSN501"),
                       ("print(x)", "MSN502"), ("y = x.cpu()", "MSN502")):
        (f,) = _graph(_jit(body))
        assert f.rule == rule and "`@ms.jit`" in f.message and "PyNative" not in f.message, f.message
        assert "MindSpore" in f.why


def test_cpu_and_list_are_free_in_a_recorded_forward():
    assert _graph(_module("y = x.cpu()\nparts = list(x)")) == []


def test_print_of_non_tensors_only_prints_while_recording():
    for body in ("print('shape', x.shape)", "print(f'batch {x.shape[0]}', x.size()[1])", "n = len(x)\nprint(n)"):
        (f,) = _graph(_module(body))
        assert f.rule == "MSN502" and "records" in f.message and "PyNative" not in f.message, body
    # unknown argument: both consequences are named
    (f,) = _graph(_module("h = self.fc(x)\nprint(h)"))
    assert "PyNative" in f.message and "records" in f.message


def test_syntax_is_free_in_forward_but_not_under_ms_jit():
    body = "import math\ntry:\n    y = x * math.pi\nexcept RuntimeError:\n    raise\ndel y"
    assert _graph(_module(body)) == []
    found = _graph(_jit(body))
    assert {f.message.split(" inside")[0] for f in found} == {"`import` statement", "`try` statement",
                                                              "`del` statement"}
    assert all(f.rule == "MSN503" for f in found)


def test_side_effects_in_forward_are_reported_local_state_is_not():
    cases = {
        "self.calls += 1": "self.calls",
        "self.last = x": "self.last",
        "setattr(self, 'last', x)": "setattr",
        "seen.append(x)": "seen.append",
        "table['k'] = x": "`table`",
        "global steps\nsteps = 1": "global steps",
    }
    for body, what in cases.items():
        found = [f for f in _graph(_module(body, prelude="seen = []\ntable = {}\nsteps = 0\n")) if f.rule == "MSN503"]
        assert len(found) == 1, (body, found)
        assert what in found[0].message and "replayed" in found[0].message, found[0].message
        assert found[0].severity is Severity.WARNING
    clean = ("outs = []\nouts.append(x)\nd = {}\nd['a'] = x\nself.buf.add_(1)\nself.buf[0] = 1\n"
             "self.w = nn.Parameter(x)\nself.sub = nn.Linear(2, 2)\ny = x.add(1)\n"
             "def helper(z):\n    nonlocal outs\n    outs = [z]\nhelper(x)")
    assert [f for f in _graph(_module(clean)) if f.rule == "MSN503"] == []


def test_torch_compile_functions_are_plain_python_on_msnb():
    src = "@torch.compile\ndef f(x: torch.Tensor):\n    print(x)\n    if x.sum() > 0:\n        return x.item()\n"
    assert _graph(src) == []


def test_only_random_draws_graph_mode_cannot_feed_are_reported():
    """Samplers and dropout masks are fed to the compiled graph (not reported);
    in-place fills and draws from a tensor's values make the module fall back."""
    (f,) = _graph(_module("x = x * x.new_empty(x.shape).uniform_()"))
    assert (f.rule, f.severity) == ("MSN504", Severity.WARNING) and "PyNative" in f.message
    (f,) = _graph(_module("x = torch.multinomial(x, 1)"))
    assert f.rule == "MSN504"
    for body in ("x = x + torch.randn_like(x)", "x = F.dropout(x, 0.1, self.training)",
                 "x = x * torch.bernoulli(x, 0.5)", "n = x.normal()"):
        assert _graph(_module(body)) == [], body
    assert _graph(_jit("y = torch.rand(2).uniform_()")) == []
    assert analyze(HEAD + _module("x.uniform_()"), mode="pynative", rules=["MSN504"], registry={}) == []


def test_autograd_function_is_info_and_never_blocks_a_graph_cell():
    src = ("class Sq(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
           "        ctx.save_for_backward(x)\n        return x * x\n    @staticmethod\n"
           "    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n        return 2 * x * g\n")
    found = _graph(src)
    assert [(f.rule, f.severity) for f in found] == [("MSN511", Severity.INFO)]
    assert "compiles it" in found[0].message and "bprop" in found[0].message
    assert not has_blocking(found, "graph")
