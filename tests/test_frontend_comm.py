"""The kernel side of the JupyterLab toolbar: comm target ``msnb`` reads and
writes the one settings object the magics and the panel use, and pushes every
change back to the front ends."""

from __future__ import annotations

import comm as comm_package
import pytest
from comm.base_comm import BaseComm

from msnb import frontend_comm
from msnb.settings import settings


class FrontendComm(BaseComm):
    """A comm as the kernel sees one a front end opened: it records what the kernel sends."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        super().__init__(target_name=frontend_comm.TARGET, primary=False)

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        self.sent.append({"type": msg_type, "data": data})

    def from_frontend(self, data) -> None:
        self.handle_msg({"content": {"comm_id": self.comm_id, "data": data}})

    @property
    def last(self) -> dict:
        return self.sent[-1]["data"]


@pytest.fixture
def frontend(run):
    """A front end that opened the ``msnb`` comm in the shell where msnb is loaded."""
    target = comm_package.get_comm_manager().targets[frontend_comm.TARGET]
    fe = FrontendComm()
    target(fe, {"content": {"data": {}}})
    yield fe
    fe.handle_close({"content": {}})


def test_load_ext_registers_the_target(ip):
    assert comm_package.get_comm_manager().targets.get(frontend_comm.TARGET) is not None


def test_opening_sends_the_current_state(frontend):
    assert frontend.last == {"state": {"mode": "pynative", "amp": "O0", "device": "auto",
                                       "target": frontend_comm.state()["target"], "analyze": True}}


def test_toolbar_change_reaches_the_settings_the_magics_use(frontend, run, capsys):
    frontend.from_frontend({"action": "set", "changes": {"mode": "graph", "amp": "O2"}})
    assert (settings.mode, settings.amp) == ("graph", "O2")
    assert frontend.last["state"]["mode"] == "graph"
    capsys.readouterr()
    run("%msnb status")
    out = capsys.readouterr().out
    assert "graph" in out and "O2" in out


def test_magic_change_is_pushed_to_the_front_end(frontend, run):
    run("%torch_on_ascend --amp O1")
    assert frontend.last == {"state": frontend_comm.state()}
    assert frontend.last["state"]["amp"] == "O1"


def test_bad_value_changes_nothing_and_says_why(frontend):
    frontend.from_frontend({"action": "set", "changes": {"mode": "eager"}})
    assert settings.mode == "pynative"
    assert "mode must be one of pynative|graph" in frontend.last["error"]
    assert frontend.last["state"]["mode"] == "pynative"


@pytest.mark.parametrize("data, words", [
    ({"action": "set", "changes": {"verbose": True}}, "cannot set verbose"),
    ({"action": "set", "changes": {}}, "non-empty"),
    ({"action": "delete"}, "expected"),
    ("mode=graph", "expected"),
])
def test_malformed_messages_get_one_line_errors(frontend, data, words):
    before = settings.snapshot()
    frontend.from_frontend(data)
    assert words in frontend.last["error"] and settings.snapshot() == before


def test_get_resends_the_state(frontend):
    frontend.sent.clear()
    frontend.from_frontend({"action": "get"})
    assert frontend.sent == [{"type": "comm_msg", "data": {"state": frontend_comm.state()}}]


def test_closed_comm_hears_nothing_more(frontend, run):
    frontend.handle_close({"content": {}})
    assert frontend not in frontend_comm.open_comms()
    count = len(frontend.sent)
    run("%torch_on_ascend --mode graph")
    assert len(frontend.sent) == count


def test_unregister_closes_comms_and_removes_the_target(frontend, ip):
    try:
        frontend_comm.unregister(ip)
        assert frontend_comm.TARGET not in comm_package.get_comm_manager().targets
        assert frontend.sent[-1]["type"] == "comm_close"
        assert frontend_comm.open_comms() == ()
        settings.update(mode="graph")
        assert frontend.sent[-1]["type"] == "comm_close"
    finally:
        frontend_comm.register(ip)


def test_panel_and_toolbar_stay_in_step(frontend):
    """The ipywidgets panel and the toolbar share the settings: each sees the other's change."""
    from msnb.widgets.panel import ControlPanel

    panel = ControlPanel(ascend=False)
    try:
        panel.amp.value = "O3"
        assert frontend.last["state"]["amp"] == "O3"
        frontend.from_frontend({"action": "set", "changes": {"mode": "graph"}})
        assert panel.mode.value == "graph"
    finally:
        panel.close()
