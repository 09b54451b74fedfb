"""The shared settings object: defaults, validation, observers."""

import pytest

from msnb.settings import DEFAULTS, Settings


def test_defaults():
    s = Settings()
    assert (s.mode, s.amp, s.device, s.analyze, s.verbose) == ("pynative", "O0", "auto", True, False)
    assert s.snapshot() == DEFAULTS


def test_bad_values_are_rejected_and_nothing_changes():
    s = Settings()
    with pytest.raises(ValueError, match="mode must be one of pynative|graph"):
        s.update(amp="O2", mode="eager")
    assert s.amp == "O0"
    with pytest.raises(ValueError, match="True or False"):
        s.verbose = "yes"
    with pytest.raises(ValueError, match="unknown setting"):
        s.update(colour="red")


def test_observers_hear_changes_once():
    s = Settings()
    seen = []
    s.observe(seen.append)
    s.update(mode="graph", amp="O2")
    s.mode = "graph"  # no change, no call
    s.unobserve(seen.append)
    s.amp = "O3"
    assert seen == [{"mode": ("pynative", "graph"), "amp": ("O0", "O2")}]
