"""The one settings object that magic flags, the CLI and (later) the panel share.

A single object means a flag typed in ``%torch_on_ascend --mode graph`` and a
dropdown in the panel cannot disagree: both write here, and observers (the
panel, the runtime) hear about every change.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["CHOICES", "DEFAULTS", "Settings", "settings"]

#: Allowed values of each choice setting, in the order help text lists them.
CHOICES: dict[str, tuple[str, ...]] = {
    "mode": ("pynative", "graph"),
    "amp": ("O0", "O1", "O2", "O3"),
    "device": ("auto", "cpu", "ascend"),
}

DEFAULTS: dict[str, Any] = {
    "mode": "pynative",
    "amp": "O0",
    "device": "auto",
    "analyze": True,
    "verbose": False,
    #: show the analyzer's advice (info findings) too, not only errors and warnings
    "advice": False,
    #: analyzer rule codes ignored for the session (``%msnb ignore MSN201``)
    "ignore": (),
}

Observer = Callable[[dict[str, tuple[Any, Any]]], None]


class Settings:
    """Session settings with validation and change callbacks.

    ``update(mode="graph")`` validates every value first and applies none of
    them if one is bad, then calls each observer once with
    ``{name: (old, new)}`` for the values that changed.
    """

    def __init__(self) -> None:
        self._values = dict(DEFAULTS)
        self._observers: list[Observer] = []

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            super().__setattr__(name, value)
        else:
            self.update(**{name: value})

    @staticmethod
    def validate(name: str, value: Any) -> Any:
        """Return ``value`` if it is allowed for ``name``, else raise ValueError."""
        if name not in DEFAULTS:
            raise ValueError(f"unknown setting {name!r}; known: {', '.join(DEFAULTS)}")
        if name in CHOICES:
            if value not in CHOICES[name]:
                allowed = "|".join(CHOICES[name])
                raise ValueError(f"{name} must be one of {allowed}, not {value!r}")
        elif name == "ignore":
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"ignore must be a tuple of rule codes, not {value!r}")
            return tuple(value)
        elif not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, not {value!r}")
        return value

    def update(self, **changes: Any) -> None:
        """Validate and apply ``changes``; notify observers of what changed."""
        changes = {name: self.validate(name, value) for name, value in changes.items()}
        changed = {
            name: (self._values[name], value)
            for name, value in changes.items()
            if self._values[name] != value
        }
        self._values.update(changes)
        if changed:
            for callback in list(self._observers):
                callback(changed)

    def snapshot(self) -> dict[str, Any]:
        """Return a copy of the current values (a cell's options start here)."""
        return dict(self._values)

    def reset(self) -> None:
        """Go back to the defaults (tests and ``%unload_ext`` use this)."""
        self.update(**DEFAULTS)

    def observe(self, callback: Observer) -> None:
        """Call ``callback({name: (old, new)})`` after each change."""
        if callback not in self._observers:
            self._observers.append(callback)

    def unobserve(self, callback: Observer) -> None:
        """Stop calling ``callback``; unknown callbacks are ignored."""
        if callback in self._observers:
            self._observers.remove(callback)

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Settings({body})"


#: The session's settings; everything in msnb reads and writes this object.
settings = Settings()
