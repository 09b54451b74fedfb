"""``%load_ext msnb`` imports MindSpore and msnb's adapter in the background (``msnb/runtime/preload.py``),
through a real kernel (jupyter_client): cells run while the import is under way
print only their own output, a plain ``import mindspore`` meanwhile does not
deadlock, and the first magic cell waits for the import and works.  Nothing
here is timed (``benchmarks/first_cell.py`` measures the latency)."""

from __future__ import annotations

import re

from tests.runtime.test_interrupts import kernel, run

PROBE = "from msnb.runtime import preload\nprint('preload', preload.state()['started'] is not None)"
MAGIC = "%%torch_on_ascend\nimport torch\nprint((torch.ones(2) * 2).tolist())"


def _lines(reply):
    return [ln for ln in reply.text.splitlines() if ln.strip()]


def test_cells_during_the_background_import_print_only_their_own_output():
    with kernel({}) as (km, client):
        load = run(km, client, "%load_ext msnb")
        assert load.status == "ok" and load.outputs == []
        probe = run(km, client, PROBE)  # at once: the import is still running
        assert probe.status == "ok" and _lines(probe) == ["preload True"]
        plain = run(km, client, "print(sum(range(10)))")
        assert plain.status == "ok" and _lines(plain) == ["45"]
        first = run(km, client, MAGIC)
        assert first.status == "ok", first.traceback
        lines = _lines(first)
        assert lines[-1] == "[2.0, 2.0]" and all(ln.startswith("msnb: ") for ln in lines[:-1]), lines
        assert not re.search(r"\[(WARNING|ERROR)\]", first.text)
        again = run(km, client, MAGIC)
        assert again.status == "ok" and _lines(again) == ["[2.0, 2.0]"]
        state = run(km, client, "from msnb.runtime import preload\ns = preload.state()\n"
                                "print(s['error'], s['running'], s['finished'] is not None)")
        assert _lines(state) == ["None False True"]


def test_plain_import_of_mindspore_right_after_load_ext_does_not_deadlock():
    with kernel({}) as (km, client):
        assert run(km, client, "%load_ext msnb").status == "ok"
        plain = run(km, client, "import mindspore\nprint(mindspore.__version__)", timeout=300)
        assert plain.status == "ok" and _lines(plain) == ["2.10.0"]
        # msnb's adapter and analyzer are imported in the background too, after MindSpore, before any kernel ran
        done = run(km, client, "import sys\nfrom msnb.runtime import preload\npreload.wait()\n"
                               "print(all(m in sys.modules for m in ('msnb.adapter.torch', 'msnb.analyzer', 'libcst')),"
                               " preload.state()['error'])", timeout=300)
        assert done.status == "ok" and _lines(done) == ["True None"]
        first = run(km, client, MAGIC, timeout=300)
        assert first.status == "ok" and _lines(first)[-1] == "[2.0, 2.0]"
