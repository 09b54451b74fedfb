"""CellGlobals: a cell's functions keep its adapter names; globals reach user_ns."""

import types

from msnb.runtime.namespace import CellGlobals, flush_all


def run(source, user_ns):
    cell_globals = CellGlobals(user_ns)
    exec(compile(source, "<cell>", "exec"), cell_globals, user_ns)
    return cell_globals


def test_pinned_name_survives_rebinding_in_user_ns():
    adapter, real = types.ModuleType("adapter"), types.ModuleType("real")
    ns = {"__name__": "__main__", "torch": adapter, "y": 2}
    g = run("def f():\n    return torch, y, [torch for _ in range(1)][0], (lambda: torch)()\n", ns)
    g.pin([("torch", adapter)])
    ns["torch"], ns["y"] = real, 3
    assert ns["f"]() == (adapter, 3, adapter, adapter)
    assert ns["f"].__module__ == "__main__"


def test_class_bodies_and_methods_see_user_ns_and_pins():
    adapter = types.ModuleType("adapter")
    ns = {"__name__": "__main__", "torch": adapter, "width": 4}
    g = run("class Net:\n    size = width * 2\n    lib = torch\n    def m(self):\n        return torch, len([1])\n", ns)
    g.pin([("torch", adapter)])
    ns["torch"] = None
    assert ns["Net"].size == 8 and ns["Net"].lib is adapter
    assert ns["Net"]().m() == (adapter, 1)


def test_imports_and_builtins_work_inside_cell_functions():
    ns = {"__name__": "__main__"}
    run("def f():\n    import math\n    return math.floor(2.5), print is not None\n", ns)
    assert ns["f"]() == (2, True)


def test_global_writes_reach_user_ns_after_flush():
    ns = {"__name__": "__main__"}
    run("def bump():\n    global count\n    count = count + 1 if 'count' in globals() else 1\n", ns)
    ns["bump"]()
    flush_all()
    assert ns["count"] == 1
    ns["bump"]()
    flush_all()
    assert ns["count"] == 2
