"""Device choice (once per process) and mode restored after a cell."""

import types

import pytest

from msnb.runtime.context import CellContext, DeviceError, DeviceState, active


class FakeMindSpore:
    """Stands in for hardware we do not have: whether Ascend is available."""

    __version__ = "2.10.0"

    def __init__(self, ascend: bool):
        self.hal = types.SimpleNamespace(is_available=lambda target: ascend and target == "Ascend")
        self.bound = []
        self.blocking = 0
        self.runtime = types.SimpleNamespace(launch_blocking=self._block)

    def _block(self):
        self.blocking += 1

    def set_device(self, target):
        self.bound.append(target)

    def get_context(self, key):
        assert key == "device_target"
        return None  # nothing bound yet: DeviceState must call set_device


def test_auto_picks_cpu_without_ascend_and_says_so_once(monkeypatch):
    monkeypatch.setenv("MSNB_LAUNCH", "async")
    lines, ms = [], FakeMindSpore(ascend=False)
    state = DeviceState(say=lines.append)
    assert state.bind(ms, "auto") == "CPU"
    assert state.bind(ms, "cpu") == "CPU"
    assert ms.bound == ["CPU"]
    assert lines == ["msnb: running on CPU (Ascend not available), MindSpore 2.10.0"]


def test_auto_picks_ascend_when_available():
    ms = FakeMindSpore(ascend=True)
    assert DeviceState(say=lambda line: None).bind(ms, "auto") == "Ascend"


def test_ascend_unavailable_and_switching_are_errors():
    state = DeviceState(say=lambda line: None)
    with pytest.raises(DeviceError, match="cannot use Ascend"):
        state.bind(FakeMindSpore(ascend=False), "ascend")
    state.bind(FakeMindSpore(ascend=True), "cpu")
    with pytest.raises(DeviceError, match="restart"):
        state.bind(FakeMindSpore(ascend=True), "ascend")


def test_mode_applied_for_the_cell_and_restored_after_interrupt():
    import mindspore as ms

    before = ms.get_context("mode")
    with pytest.raises(KeyboardInterrupt):
        with CellContext("graph", "O2", "cpu", DeviceState(say=lambda line: None)) as ctx:
            assert ms.get_context("mode") == ms.GRAPH_MODE
            assert active() is ctx and ctx.amp == "O2" and ctx.target == "CPU"
            raise KeyboardInterrupt
    assert ms.get_context("mode") == before
    assert active() is None
