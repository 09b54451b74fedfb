"""``%msnb SUBCOMMAND``: one line magic, subcommands from a dispatch table.

Other parts of msnb add subcommands (``explain``, ``panel``, ``fix``) with
:func:`subcommand`; ``%msnb`` alone lists them.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

__all__ = ["MsnbMagics", "SUBCOMMANDS", "help_text", "subcommand"]

#: name -> handler(magics, rest of the line); see :func:`subcommand`.
SUBCOMMANDS: dict[str, Callable[["MsnbMagics", str], Any]] = {}


def subcommand(name: str, usage: str = "") -> Callable:
    """Register ``handler(magics, args)`` as ``%msnb NAME ARGS``; ``usage`` is the
    ARGS part of ``%msnb NAME --help`` (the handler's docstring follows it)."""

    def register(handler: Callable[["MsnbMagics", str], Any]) -> Callable:
        SUBCOMMANDS[name] = handler
        handler.__msnb_usage__ = usage
        return handler

    return register


def _is_help(args: str) -> bool:
    return args.strip() in ("-h", "--help")


def help_text(name: str | None = None) -> str:
    """``--help`` of ``%msnb`` (``name`` None) or of one subcommand."""
    if name is None:
        rows = [f"  {n:<10}{inspect.getdoc(h).splitlines()[0] if inspect.getdoc(h) else ''}"
                for n, h in sorted(SUBCOMMANDS.items())]
        return "usage: %msnb SUBCOMMAND [ARGS]\n\nsubcommands:\n" + "\n".join(rows) + \
            "\n\n%msnb SUBCOMMAND --help shows one in full."
    handler = SUBCOMMANDS[name]
    usage = getattr(handler, "__msnb_usage__", "")
    return (f"usage: %msnb {name}" + (f" {usage}" if usage else "") + "\n\n" +
            (inspect.getdoc(handler) or "") + "\n")


@subcommand("status")
def _status(magics: "MsnbMagics", args: str) -> None:
    """Print mode, AMP, device and MindSpore version."""
    if args.strip():
        raise UsageError("%msnb status takes no arguments")
    for key, value in magics.runtime.status().items():
        print(f"{key + ':':11}{value}")


@subcommand("explain", "[--reset]")
def _explain(magics: "MsnbMagics", args: str) -> None:
    """Graph mode: graphs compiled, and every part that ran in PyNative with why and where
    (``--reset`` then forgets them, to start a fresh count)."""
    if args.strip() not in ("", "--reset"):
        raise UsageError("%msnb explain takes no arguments but --reset")
    print(magics.runtime.explain(reset=args.strip() == "--reset"))


@subcommand("panel")
def _panel(magics: "MsnbMagics", args: str) -> None:
    """Display the control panel (text status when ipywidgets is missing)."""
    if args.strip():
        raise UsageError("%msnb panel takes no arguments")
    from msnb.widgets import make_panel

    try:
        widget = make_panel()
    except ImportError as exc:
        print(f"{exc}; showing the status as text instead")
        return _status(magics, "")
    from IPython.display import display

    display(widget)
    return None


@subcommand("fix")
def _fix(magics: "MsnbMagics", args: str) -> None:
    """Show the analyzer's rewrite of the last analyzed cell as a diff and put
    the fixed cell in the next input (``--replace``: in place of that cell)."""
    if args.strip() not in ("", "--replace"):
        raise UsageError("%msnb fix takes no arguments but --replace")
    from msnb.runtime.analysis import history, last_analyzed
    from msnb.settings import settings

    source, mode = last_analyzed()
    if source is None:
        print("msnb: no analyzed cell yet: run a %%torch_on_ascend cell first")
        return None
    from msnb.analyzer import fix
    from msnb.analyzer.report import render_diff, render_diff_html

    earlier = history()[:-1]
    fixed = fix(source, mode=mode or "pynative", context=earlier, ignore=settings.ignore)
    if fixed == source:
        print("msnb: nothing to fix in the last analyzed cell")
        return None
    _display({"text/plain": render_diff(source, fixed), "text/html": render_diff_html(source, fixed)})
    magics.shell.set_next_input(fixed, replace=args.strip() == "--replace")
    return None


@subcommand("analyze")
def _analyze(magics: "MsnbMagics", args: str) -> None:
    """Findings for the last analyzed cell again; ``--all`` adds the advice
    (info findings) that cells do not show by default."""
    if args.strip() not in ("", "--all"):
        raise UsageError("%msnb analyze takes no arguments but --all")
    from msnb.runtime.analysis import history, last_analyzed
    from msnb.settings import settings

    source, mode = last_analyzed()
    if source is None:
        print("msnb: no analyzed cell yet: run a %%torch_on_ascend cell first")
        return None
    from msnb.analyzer import analyze, visible
    from msnb.analyzer.report import render_html, render_text

    found = visible(analyze(source, mode=mode or "pynative", context=history()[:-1], ignore=settings.ignore),
                    advice=args.strip() == "--all" or settings.advice)
    if not found:
        print("msnb analyzer: no findings" + ("" if args.strip() else " (advice too: %msnb analyze --all)"))
        return None
    _display({"text/plain": render_text(found), "text/html": render_html(found)})
    return None


@subcommand("ignore")
def _ignore(magics: "MsnbMagics", args: str) -> None:
    """Ignore analyzer rule codes for the rest of the session
    (``%msnb ignore MSN201,MSN301``; ``--reset`` forgets them; alone: list them)."""
    from msnb.magics.flags import ignore_codes
    from msnb.settings import settings

    text = args.strip()
    if text == "--reset":
        settings.update(ignore=())
    elif text:
        settings.update(ignore=tuple(sorted(set(settings.ignore) | set(ignore_codes(text)))))
    print("msnb ignores: " + (", ".join(settings.ignore) or "nothing"))


def _display(bundle: dict[str, str]) -> None:
    from IPython.display import display

    display(bundle, raw=True)


@magics_class
class MsnbMagics(Magics):
    """``%msnb``; shares the runtime of the ``torch_on_ascend`` magics."""

    def __init__(self, shell: Any, torch_magics: Any) -> None:
        super().__init__(shell)
        self._torch_magics = torch_magics

    @property
    def runtime(self):
        return self._torch_magics.runtime

    @line_magic
    def msnb(self, line: str) -> Any:
        """msnb commands: %msnb status, explain, panel, fix, analyze, ignore (all are listed by %msnb)."""
        name, _, rest = line.strip().partition(" ")
        names = ", ".join(sorted(SUBCOMMANDS))
        if not name or _is_help(name):
            print(help_text())
            return None
        if name not in SUBCOMMANDS:
            raise UsageError(f"unknown %msnb subcommand {name!r}; one of: {names}")
        if _is_help(rest):
            print(help_text(name))
            return None
        return SUBCOMMANDS[name](self, rest)
