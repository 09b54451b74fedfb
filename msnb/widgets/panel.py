"""``%msnb panel`` / ``msnb.panel()``: an ipywidgets control panel for msnb.

Layout (a ``VBox``)::

    Mode     [PyNative][Graph]            <- ToggleButtons
    AMP      [O0][O1][O2][O3]             <- ToggleButtons
    Device   [auto][CPU][Ascend]          <- one ToggleButton per choice (so each can be disabled)
    [x] analyzer  [ ] advice              <- Checkboxes (advice: the analyzer's info findings too)
    last cell: mode, AMP, device, graphs, compile time, step time, fallbacks  <- HTML
    (errors)                              <- Output

The logic lives outside the widgets (ipywidgets' ``interaction.py`` pattern):
every control is bound both ways to the one :data:`msnb.settings.settings`
object.  A widget change calls ``settings.update``; a settings change (from
``%torch_on_ascend --mode graph``, another panel, or code) updates every live
panel.  Cells snapshot the settings when they start, so a change applies from
the next cell on.  The "last cell" section is redrawn from
:func:`msnb.runtime.report.last` after every ``%%torch_on_ascend`` cell.

ipywidgets keeps every widget alive until it is closed, so a panel listens
until :meth:`ControlPanel.close` (which unsubscribes it).  Tests drive a panel headless: set ``.value`` and
assert on the settings, or change the settings and assert on ``.value``.
"""

from __future__ import annotations

import html
from typing import Any, Callable

import ipywidgets as W
import traitlets

from msnb.runtime import report as run_report
from msnb.settings import CHOICES, Settings, settings as shared_settings

__all__ = ["ControlPanel", "ChoiceButtons", "ascend_available", "render_report"]

_LABELS = {"pynative": "PyNative", "graph": "Graph", "auto": "auto", "cpu": "CPU", "ascend": "Ascend"}


def ascend_available() -> bool:
    """Whether MindSpore can use Ascend here (imports MindSpore on first call)."""
    import mindspore as ms

    return bool(ms.hal.is_available("Ascend"))


class ChoiceButtons(W.HBox):
    """One ``ToggleButton`` per choice, exactly one pressed, each one can be disabled.

    ``ToggleButtons`` cannot disable a single option, which the device row
    needs.  ``value`` is the pressed choice; setting it to a disabled choice
    raises ``traitlets.TraitError``.
    """

    value = traitlets.Unicode()
    #: set while the panel mirrors a settings value the user could not have clicked
    _allow_disabled = False

    def __init__(self, choices: tuple[str, ...], value: str, disabled: tuple[str, ...] = (),
                 tooltips: dict[str, str] | None = None, **kwargs: Any) -> None:
        tooltips = tooltips or {}
        self.choices = tuple(choices)
        self.buttons = {
            c: W.ToggleButton(description=_LABELS.get(c, c), value=c == value, disabled=c in disabled,
                              tooltip=tooltips.get(c, ""), layout=W.Layout(width="auto"))
            for c in self.choices
        }
        super().__init__(children=list(self.buttons.values()), **kwargs)
        self._allow_disabled = True  # the settings may already name a disabled choice
        self.value = value
        self._allow_disabled = False
        for choice, button in self.buttons.items():
            button.observe(lambda change, choice=choice: self._pressed(choice, change["new"]), names="value")

    @traitlets.validate("value")
    def _valid(self, proposal):
        value = proposal["value"]
        if value not in self.buttons:
            raise traitlets.TraitError(f"{value!r} is not one of {', '.join(self.choices)}")
        if self.buttons[value].disabled and not self._allow_disabled:
            raise traitlets.TraitError(f"{value!r} is not available on this machine")
        return value

    @traitlets.observe("value")
    def _show(self, change) -> None:
        for choice, button in self.buttons.items():
            button.value = choice == change["new"]

    def _pressed(self, choice: str, pressed: bool) -> None:
        if pressed:
            self.value = choice
        elif self.value == choice:  # pressing the pressed button again keeps it pressed
            self.buttons[choice].value = True


class ControlPanel(W.VBox):
    """msnb's control panel, bound to ``settings`` (default: the session's settings).

    ``ascend`` tells whether Ascend can be chosen; by default MindSpore is
    asked (``mindspore.hal.is_available("Ascend")``).
    """

    def __init__(self, settings: Settings = shared_settings, ascend: bool | Callable[[], bool] | None = None,
                 **kwargs: Any) -> None:
        self.settings = settings
        if ascend is None:
            ascend = ascend_available
        self.ascend_ok = bool(ascend() if callable(ascend) else ascend)
        values = settings.snapshot()
        self.mode = W.ToggleButtons(options=[(_LABELS[c], c) for c in CHOICES["mode"]], value=values["mode"],
                                    description="Mode", tooltips=["PyNative: op by op", "Graph: compiled"])
        self.amp = W.ToggleButtons(options=list(CHOICES["amp"]), value=values["amp"], description="AMP",
                                   tooltips=["float32", "white-list ops in float16",
                                             "float16 but BatchNorm/LayerNorm", "all float16"])
        unavailable = () if self.ascend_ok else ("ascend",)
        self.device = ChoiceButtons(CHOICES["device"], values["device"], disabled=unavailable,
                                    tooltips={"ascend": "Ascend" if self.ascend_ok else "Ascend is not available here",
                                              "auto": "Ascend when available, else CPU"})
        self.analyze = W.Checkbox(value=values["analyze"], description="analyzer", indent=False)
        # the same setting as ``%msnb analyze --all`` shows once: info findings on every cell
        self.advice = W.Checkbox(value=values["advice"], description="advice (info findings)", indent=False,
                                 tooltip="also show the analyzer's advice for cells that run as on PyTorch")
        self.status = W.HTML()
        self.errors = W.Output()
        device_row = W.HBox([W.Label("Device", layout=W.Layout(width="90px")), self.device])
        super().__init__(children=[W.HTML("<b>msnb</b>"), self.mode, self.amp, device_row,
                                   W.HBox([self.analyze, self.advice]), self.status, self.errors], **kwargs)
        self._controls = {"mode": self.mode, "amp": self.amp, "device": self.device, "analyze": self.analyze,
                          "advice": self.advice}
        self._syncing = False
        for name, widget in self._controls.items():
            widget.observe(lambda change, name=name: self._widget_changed(name, change), names="value")
        self._on_settings, self._on_report = self._settings_changed, self._refresh_status
        settings.observe(self._on_settings)
        run_report.subscribe(self._on_report)
        self._refresh_status(run_report.last())

    # --- the two directions of the binding -------------------------------------------------
    def _widget_changed(self, name: str, change: dict) -> None:
        if self._syncing:
            return
        try:
            self.settings.update(**{name: change["new"]})
        except ValueError as exc:
            self._show_error(exc)
            self._set_quietly(name, change["old"])

    def _settings_changed(self, changed: dict[str, tuple[Any, Any]]) -> None:
        for name, (_, new) in changed.items():
            if name in self._controls:
                try:
                    self._set_quietly(name, new)
                except traitlets.TraitError as exc:  # e.g. ascend chosen elsewhere but disabled here
                    self._show_error(exc)

    def _set_quietly(self, name: str, value: Any) -> None:
        self._syncing = True
        self.device._allow_disabled = True
        try:
            self._controls[name].value = value
        finally:
            self._syncing = False
            self.device._allow_disabled = False

    def _show_error(self, exc: BaseException) -> None:
        # append_stdout writes to the Output's model directly: works in a kernel and headless
        self.errors.append_stdout(f"msnb panel: {exc}\n")

    # --- the "last cell" section --------------------------------------------------------------
    def _refresh_status(self, rep: run_report.RunReport | None) -> None:
        self.status.value = render_report(rep)

    # --- what a saved notebook shows where widgets are not live ------------------------------
    def summary(self) -> str:
        """One line: the settings the panel shows, and the last cell's outcome."""
        values = self.settings.snapshot()
        head = (f"msnb panel: mode={values['mode']} amp={values['amp']} device={values['device']} "
                f"analyzer={'on' if values['analyze'] else 'off'} advice={'on' if values['advice'] else 'off'}")
        rep = run_report.last()
        if rep is None:
            return head + "; no %%torch_on_ascend cell has run yet"
        outcome = "ok" if rep.ok else f"failed ({rep.error})"
        return head + f"; last cell: {rep.mode} on {rep.target or rep.device}, {_seconds(rep.wall_time)}, {outcome}"

    def __repr__(self) -> str:
        return self.summary()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        """The widget view, plus readable text and HTML for saved notebooks,
        nbconvert and other front ends without live widgets."""
        bundle = dict(super()._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = self.summary()
        bundle["text/html"] = f"<div class='msnb-panel'><b>msnb panel</b> (static copy: run the cell to use it)" \
                              f"<p>{html.escape(self.summary())}</p>{render_report(run_report.last())}</div>"
        return bundle

    def close(self) -> None:
        """Stop listening, then close the widgets."""
        self.settings.unobserve(self._on_settings)
        run_report.unsubscribe(self._on_report)
        for widget in (*self._controls.values(), self.status, self.errors):
            widget.close()
        super().close()


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def render_report(rep: run_report.RunReport | None) -> str:
    """HTML for the "last cell" section (plain data in, text out; tested on its own)."""
    if rep is None:
        return "<i>last cell: no %%torch_on_ascend cell has run yet</i>"
    target = f" on {rep.target}" if rep.target else ""
    rows = [
        ("mode", rep.mode), ("AMP", rep.amp), ("device", f"{rep.device}{target}"),
        ("wall time", _seconds(rep.wall_time)), ("graphs compiled", str(rep.graphs_compiled)),
        ("compile time", _seconds(rep.compile_time) if rep.graphs_compiled else "-"),
        ("step time", _seconds(rep.step_time)),
        ("fallbacks", "; ".join(rep.fallbacks) if rep.fallbacks else "none"),
    ]
    if not rep.ok:
        rows.append(("error", rep.error or ""))
    body = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<b>last cell</b><table>{body}</table>"
