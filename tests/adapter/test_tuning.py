"""Per-host kernel choices (``msnb/adapter/_tuning.py``): measured once, cached per
machine, safe on a bad cache file, off with ``MSNB_KERNEL_TUNING=0``.

The cache logic is tested with a counting fake measurement (no timing is
asserted anywhere); one test lets the convolution plan measure for real and
checks only that its choice is a valid plan, is cached, and computes the right
convolution."""

from __future__ import annotations

import json

import numpy as np
import pytest

from msnb.adapter import _dispatch, _tuning


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """Measuring on, choices kept in a fresh file; memory forgotten before and after."""
    path = tmp_path / "choices.json"
    monkeypatch.setenv("MSNB_KERNEL_TUNING", "1")
    monkeypatch.setenv("MSNB_TUNING_CACHE", str(path))
    _tuning.forget()
    yield path
    _tuning.forget()


class Measure:
    """A fake measurement that says which candidate won and counts its calls."""

    def __init__(self, result):
        self.result, self.calls = result, 0

    def __call__(self):
        self.calls += 1
        return self.result


def test_first_sight_measures_then_memory_and_file_answer(cache):
    m = Measure(["im2col", "native", "native", 8])
    assert _tuning.choose("k1", ["native"] * 3 + [1], m) == ["im2col", "native", "native", 8]
    assert _tuning.choose("k1", None, m) == ["im2col", "native", "native", 8]
    assert m.calls == 1
    data = json.loads(cache.read_text())
    assert data == {_tuning.host_key(): {"k1": ["im2col", "native", "native", 8]}}
    _tuning.forget()  # a new process: the file answers, nothing is measured
    assert _tuning.choose("k1", None, m) == ["im2col", "native", "native", 8] and m.calls == 1


def test_choices_are_per_host(cache, monkeypatch):
    """Another CPU model (or MindSpore version) has its own section: measured again, both kept."""
    _tuning.choose("k", None, Measure("a"))
    _tuning.forget()
    monkeypatch.setattr(_tuning, "_cpu_model", lambda: "Some Other CPU")
    m = Measure("b")
    assert _tuning.choose("k", None, m) == "b" and m.calls == 1
    data = json.loads(cache.read_text())
    assert len(data) == 2 and sorted(sec["k"] for sec in data.values()) == ["a", "b"]
    assert all("mindspore" in host and "cores" in host for host in data)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"host": 3}', "\x00\xff", ""])
def test_corrupt_cache_is_ignored_and_rewritten(cache, content):
    cache.write_bytes(content.encode("latin-1"))
    m = Measure("x")
    assert _tuning.choose("k", "default", m) == "x" and m.calls == 1
    assert json.loads(cache.read_text())[_tuning.host_key()] == {"k": "x"}


def test_cached_value_of_the_wrong_form_is_measured_again(cache):
    cache.write_text(json.dumps({_tuning.host_key(): {"k": ["bogus"]}}))
    m = Measure(["native", "native", "native", 4])
    got = _tuning.choose("k", None, m, _dispatch._valid_conv_choice)
    assert got == ["native", "native", "native", 4] and m.calls == 1


def test_env_var_turns_measuring_off(cache, monkeypatch):
    monkeypatch.setenv("MSNB_KERNEL_TUNING", "0")
    m = Measure("measured")
    assert _tuning.choose("k", "default", m) == "default"
    assert m.calls == 0 and not cache.exists()


def test_failing_measurement_gives_the_default_uncached(cache):
    def broken():
        raise RuntimeError("kernel not available")
    assert _tuning.choose("k", "default", broken) == "default"
    m = Measure("later")
    assert _tuning.choose("k", "default", m) == "later" and m.calls == 1


def test_unwritable_cache_still_answers(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("MSNB_KERNEL_TUNING", "1")
    monkeypatch.setenv("MSNB_TUNING_CACHE", str(blocker / "sub" / "choices.json"))  # parent is a file
    _tuning.forget()
    try:
        assert _tuning.choose("k", None, Measure("y")) == "y"
    finally:
        _tuning.forget()


def test_fastest_conv_picks_per_pass_and_one_chunk():
    times = {"forward": {"native": 5.0, "im2col/4": 1.0, "im2col/2": 2.0},
             "grad_input": {"native": 0.5, "im2col/4": 1.0, "im2col/2": 0.8},
             "grad_weight": {"native": 0.1, "im2col/4": 0.3, "im2col/2": 0.4}}
    assert _dispatch._fastest_conv(times, 8) == ["im2col", "native", "native", 4]
    slow = {p: {"native": 0.1, "im2col/4": 1.0} for p in ("forward", "grad_input", "grad_weight")}
    assert _dispatch._fastest_conv(slow, 8) == ["native", "native", "native", 8]


def test_conv2d_plan_is_measured_once_and_computes_the_convolution(cache):
    """A real measurement of one small shape: some valid plan is chosen and cached,
    and F.conv2d through it agrees with real PyTorch."""
    import msnb.adapter.torch as torch
    import msnb.adapter.torch.nn.functional as F

    real = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 10, 10)).astype(np.float32)
    w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out = F.conv2d(xt, wt, padding=1)
    out.sum().backward()
    (host, section), = json.loads(cache.read_text()).items()
    (key, choice), = section.items()
    assert "x(4, 3, 10, 10)" in key and _dispatch._valid_conv_choice(choice)
    rx, rw = real.tensor(x, requires_grad=True), real.tensor(w, requires_grad=True)
    ref = real.nn.functional.conv2d(rx, rw, padding=1)
    ref.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(xt.grad.numpy(), rx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(wt.grad.numpy(), rw.grad.numpy(), rtol=1e-4, atol=1e-4)
    before = cache.read_text()
    F.conv2d(xt, wt, padding=1)  # same shape: no new measurement, file unchanged
    assert cache.read_text() == before
