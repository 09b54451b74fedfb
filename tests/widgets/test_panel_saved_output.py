"""A saved ``%msnb panel`` output reads as a summary where widgets are not
live: text/plain and text/html sit beside the widget view in its bundle."""

from __future__ import annotations

from msnb.settings import Settings


def test_bundle_has_a_readable_summary_next_to_the_widget_view():
    from msnb.widgets import make_panel

    panel = make_panel(settings=Settings(), ascend=False)
    try:
        bundle = panel._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        text = bundle["text/plain"]
        assert text.startswith("msnb panel: mode=pynative amp=O0 device=auto analyzer=on")
        assert "ControlPanel(" not in text and "children=" not in text
        assert "<b>msnb panel</b>" in bundle["text/html"] and "mode=pynative" in bundle["text/html"]
        assert repr(panel) == text
    finally:
        panel.close()
