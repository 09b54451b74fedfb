"""Property test: over generated PyTorch-like cells, ``analyze`` never
raises (strict mode: rule exceptions propagate) and ``fix`` returns code
that parses and is a fixed point of ``fix``."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msnb.analyzer import analyze, fix

NAMES = ["x", "y", "loss", "boxes", "out", "model", "device", "t", "torch", "F", "np"]
EXPRS = [
    "torch.ones(3)", "torch.rand(2, 3)", "{a} + {b}", "{a}.view(-1)", "{a}[0]", "{a}.cuda()", "model({a})",
    "torch.nn.Linear(2, 2)", "{a}.sum()", "{a}.item()", "torch.device('cuda')", "[{a}, {b}]", "F.sigmoid({a})",
    "torch.load('w.pt')", "np.asarray({a})", "{a} * 2", "{a}.to(0)", "torch.autograd.Variable({a})",
    "'%.2f' % {a}", "f'{{{a}:.3f}}'", "'{{:.1f}}'.format({a})", "torch.cuda.is_available()", "None",
]
STMTS = [
    "{a} = {e}", "{a}.add_({b})", "{a}[0, :].clamp_(0, 1)", "{a} += {b}", "print({e})", "torch.add({a}, {b}, out={a})",
    "torch.cuda.empty_cache()", "torch.backends.cudnn.benchmark = True", "torch.cuda.manual_seed(0)",
    "{a}.mul_(2); {b} = 1", "del {a}", "{a}, {b} = {b}, {a}", "torch.save({a}, 'm.pt')", "{a}[1] = {e}",
    "%time {a} = 1", "!echo hi",
]
HEADERS = ["for {a} in range(2):", "if {a}:", "def forward(self, {a}):", "with torch.no_grad():", "while {a}:"]
IMPORTS = ["import torch", "import torch as t", "import torch.nn.functional as F", "import numpy as np",
           "import msadapter.pytorch as torch", "from torch import nn"]

name = st.sampled_from(NAMES)


@st.composite
def expressions(draw):
    return draw(st.sampled_from(EXPRS)).format(a=draw(name), b=draw(name))


@st.composite
def statements(draw):
    return draw(st.sampled_from(STMTS)).format(a=draw(name), b=draw(name), e=draw(expressions()))


@st.composite
def blocks(draw, depth=0):
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 2 and draw(st.integers(0, 3)) == 0:
            header = draw(st.sampled_from(HEADERS)).format(a=draw(name))
            if header.startswith("def forward"):
                lines.append("class Net(nn.Module):")
                body = ["    " + header] + ["        " + ln for ln in draw(blocks(depth + 1))]
            else:
                body = [header] + ["    " + ln for ln in draw(blocks(depth + 1))]
            lines.extend(body)
        else:
            lines.append(draw(statements()))
    return lines


@st.composite
def cells(draw):
    imports = draw(st.lists(st.sampled_from(IMPORTS), max_size=3))
    if draw(st.booleans()):  # usually a realistic prelude, so rules and fixes fire
        imports = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F",
                   "import numpy as np"] + imports
        imports += [f"{n} = torch.rand(4, 4)" for n in draw(st.lists(name, max_size=4, unique=True))]
    return "\n".join(imports + draw(blocks())) + "\n"


def _parses_as_ipython(src: str) -> bool:
    from msnb.analyzer.masking import mask

    try:
        ast.parse(src)
    except SyntaxError:
        ast.parse(mask(src)[0])
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells(), st.sampled_from(["pynative", "graph"]))
def test_analyze_never_raises_and_fix_is_idempotent(src, mode):
    findings = analyze(src, mode=mode, registry={})
    for f in findings:
        assert f.line >= 1 and f.col >= 1
    fixed = fix(src, mode=mode, registry={})
    if not any(f.rule == "MSN000" for f in findings):
        assert _parses_as_ipython(fixed)
    assert fix(fixed, mode=mode, registry={}) == fixed


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(src):
    findings = analyze(src)
    assert all(f.rule for f in findings)
    assert isinstance(fix(src), str)
