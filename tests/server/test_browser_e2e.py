"""msnb's JupyterLab extension in a real browser (Debian's Chromium driven by
Playwright) against ``jupyter lab`` on 127.0.0.1.

One walk through what a user does: type a cell with ``x.cuda()``, see the
finding underlined with its hover, apply the quick fix, undo it with Ctrl+Z,
run the cell under ``%%torch_on_ascend``, switch the mode in the toolbar and
see ``%msnb status`` in the kernel change; a magic changes the AMP level and
the toolbar and status bar follow; the diagnostics panel jumps to a finding;
"Apply all msnb fixes" (context menu) is undone; "Migrate this notebook"
writes and opens ``demo_msnb.ipynb``; after a page reload the toolbar finds
msnb already loaded in the kernel.  Screenshots go to the test's output
folder (``tmp_path/screenshots``), printed at the end.

``make test`` installs Chromium (``.ci/install-browser.sh``); the Python
``playwright`` package comes from the ``test`` extra and uses that browser,
downloading none.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("MSNB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 60_000

CELL = "%%torch_on_ascend\nimport torch\nx = torch.ones(2)\ny = x.cuda()\nprint(y.sum().item())"


def _notebook(path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%load_ext msnb"), nbformat.v4.new_code_cell("")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, path)


def _configure_lab(base: Path) -> None:
    """No news popup over the page (the announcements plugin asks on first start),
    and msnb's user settings: MSN102 ignored, a short debounce."""
    labconfig = base / "config" / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}), encoding="utf-8")
    user = base / "config" / "lab" / "user-settings" / "msnb"
    user.mkdir(parents=True, exist_ok=True)
    (user / "plugin.jupyterlab-settings").write_text(json.dumps(
        {"ignoredRules": ["MSN102"], "debounceMs": 200}), encoding="utf-8")


def _cell_text(page, index: int) -> str:
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content").inner_text()


def _wait_cell_text(page, index: int, fragment: str, present: bool = True) -> None:
    """Wait until cell ``index``'s editor text does (or does not) contain ``fragment``."""
    page.wait_for_function(
        "([i, f, want]) => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
        ".querySelector('.cm-content').innerText.includes(f) === want", arg=[index, fragment, present])


def _palette(page, command: str) -> None:
    page.keyboard.press("Control+Shift+C")
    page.keyboard.type(command)
    page.keyboard.press("Enter")


def _run_cell(page, index: int) -> None:
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")


def _output(page, index: int, pattern: str, timeout: int = TIMEOUT_MS) -> str:
    """Wait until cell ``index``'s output matches ``pattern``; return the output text."""
    area = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")
    regex = re.compile(pattern)
    page.wait_for_function(
        "([i, p]) => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[i];"
        " return !!c && new RegExp(p).test(c.querySelector('.jp-OutputArea')?.innerText ?? ''); }",
        arg=[index, pattern], timeout=timeout)
    text = area.inner_text()
    assert regex.search(text), text
    return text


def test_diagnostics_fix_undo_run_and_toolbar(tmp_path, start_jupyter):
    if not Path(CHROMIUM).exists() or shutil.which("node") is None:
        pytest.fail(f"{CHROMIUM} or node missing: run `make test` (it runs .ci/install-browser.sh) first")
    from playwright.sync_api import expect, sync_playwright

    shots = tmp_path / "screenshots"
    shots.mkdir()
    _configure_lab(tmp_path)
    with start_jupyter(tmp_path, app="lab") as lab, sync_playwright() as pw:
        _notebook(lab.root / "demo.ipynb")
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        console: list[str] = []  # printed on failure: the extension's own view of what happened
        page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
        expect.set_options(timeout=TIMEOUT_MS)
        try:
            page.goto(f"{lab.url}/lab/tree/demo.ipynb?token={lab.token}&reset")
            page.wait_for_selector("#jupyterlab-splash", state="detached")
            page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content")
            toolbar = page.locator(".jp-msnb-ModeToolbarItem")
            status = page.locator(".jp-msnb-StatusItem")
            expect(toolbar.locator("select.jp-msnb-mode")).to_be_disabled()  # msnb not loaded yet
            expect(status).to_have_text("msnb: not loaded")

            # 1. type a cell with x.cuda(): the finding appears, with its hover
            page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".cm-content").click()
            page.keyboard.type(CELL)
            cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
            mark = cell.locator(".cm-lintRange-info", has_text="x.cuda()")
            expect(mark).to_have_count(1)
            expect(cell.locator(".cm-gutter-lint .cm-lint-marker-info")).to_have_count(1)
            mark.hover()
            tooltip = page.locator(".cm-tooltip-lint")
            expect(tooltip).to_contain_text("MSN101")
            expect(tooltip.locator(".jp-msnb-finding-why")).to_be_visible()
            expect(tooltip.locator(".jp-msnb-finding-suggestion")).to_be_visible()
            page.screenshot(path=str(shots / "1-diagnostic-hover.png"))

            # 2. quick fix, then Ctrl+Z brings the original back
            tooltip.locator(".cm-diagnosticAction", has_text=re.compile("^Fix$")).click()
            _wait_cell_text(page, 1, ".cuda()", present=False)
            fixed = _cell_text(page, 1)
            assert "y = x" in fixed and "print(y.sum().item())" in fixed, fixed
            # the fix's torch.cuda.is_available() is an MSN102 finding, which the user's settings ignore
            expect(cell.locator(".cm-lintRange")).to_have_count(0)
            page.screenshot(path=str(shots / "2-fixed.png"))
            cell.locator(".cm-content").click()
            page.keyboard.press("Control+z")
            _wait_cell_text(page, 1, "y = x.cuda()")
            assert _cell_text(page, 1) == CELL
            expect(mark).to_have_count(1)
            page.screenshot(path=str(shots / "3-undone.png"))

            # "Ignore MSN101 on this line" writes the suppression comment; the finding goes away
            mark.hover()
            tooltip.locator(".cm-diagnosticAction", has_text="Ignore MSN101 on this line").click()
            _wait_cell_text(page, 1, "y = x.cuda()  # msnb: ignore[MSN101]")
            expect(cell.locator(".cm-lintRange")).to_have_count(0)
            cell.locator(".cm-content").click()
            page.keyboard.press("Control+z")
            _wait_cell_text(page, 1, "# msnb: ignore", present=False)
            assert _cell_text(page, 1) == CELL

            # 3. run %load_ext msnb and the %%torch_on_ascend cell
            _run_cell(page, 0)
            expect(toolbar.locator("select.jp-msnb-mode")).to_be_enabled()
            expect(toolbar.locator("select.jp-msnb-mode")).to_have_value("pynative")
            _run_cell(page, 1)
            _output(page, 1, r"2\.0", timeout=150_000)
            expect(status).to_have_text(re.compile(r"msnb: CPU · pynative · AMP O0"))
            page.screenshot(path=str(shots / "4-ran-on-mindspore.png"))

            # 4. the toolbar changes the kernel's mode: %msnb status shows it
            toolbar.locator("select.jp-msnb-mode").select_option("graph")
            expect(status).to_have_text(re.compile("graph"))
            page.keyboard.type("%msnb status")  # Shift+Enter left us in a new empty cell
            page.keyboard.press("Shift+Enter")
            out = _output(page, 2, r"mode:\s+graph")
            assert re.search(r"device:\s+auto \(running on CPU\)", out), out
            page.screenshot(path=str(shots / "5-toolbar-mode-graph.png"))

            # 5. a magic in the kernel changes the AMP level: toolbar and status bar follow
            page.keyboard.type("%torch_on_ascend --amp O2")
            page.keyboard.press("Shift+Enter")
            expect(toolbar.locator("select.jp-msnb-amp")).to_have_value("O2")
            expect(status).to_have_text("msnb: CPU · graph · AMP O2")
            page.screenshot(path=str(shots / "6-magic-amp-o2.png"))

            # 6. the diagnostics panel lists the notebook's findings; a click jumps to one
            _palette(page, "Show msnb diagnostics panel")
            rows = page.locator(".jp-msnb-DiagnosticsPanel .jp-msnb-row")
            expect(rows.filter(has_text="MSN101")).to_have_count(1)
            page.locator(".jp-msnb-DiagnosticsPanel th", has_text="Severity").click()
            rows.filter(has_text="MSN101").click()
            expect(page.locator(".jp-Notebook .jp-Cell").nth(1)).to_have_class(re.compile("jp-mod-active"))
            page.screenshot(path=str(shots / "7-diagnostics-panel.png"))

            # 7. "Apply all msnb fixes" from the cell's context menu, undone with Ctrl+Z
            cell.locator(".cm-content").click(button="right")
            page.locator(".lm-Menu-itemLabel", has_text="Apply all msnb fixes").click()
            _wait_cell_text(page, 1, ".cuda()", present=False)
            page.screenshot(path=str(shots / "8-applied-all-fixes.png"))
            cell.locator(".cm-content").click()
            page.keyboard.press("Control+z")
            _wait_cell_text(page, 1, "y = x.cuda()")
            assert _cell_text(page, 1) == CELL

            # 8. "Migrate this notebook": msnb.migration writes demo_msnb.ipynb and it opens
            _palette(page, "Migrate this notebook to msnb")
            expect(page.locator(".lm-TabBar-tabLabel", has_text="demo_msnb.ipynb")).to_be_visible()
            expect(page.locator(".jp-Notebook .jp-MarkdownCell", has_text="Migrated to msnb")).to_have_count(1)
            page.screenshot(path=str(shots / "9-migrated.png"))
            assert (lab.root / "demo_msnb.ipynb").exists()

            # 9. after a page reload the front end finds msnb already loaded in the kernel
            page.reload()
            page.wait_for_selector("#jupyterlab-splash", state="detached")
            page.locator(".lm-TabBar-tab", has_text="demo.ipynb").first.click()
            expect(status).to_have_text("msnb: CPU · graph · AMP O2")
        except Exception:
            page.screenshot(path=str(shots / "failure.png"))
            print(lab.log.read_text()[-4000:])
            print("browser console:", *console[-60:], sep="\n  ")
            raise
        finally:
            browser.close()
    print(f"screenshots: {shots}")
    assert sorted(p.name for p in shots.iterdir()) == [
        "1-diagnostic-hover.png", "2-fixed.png", "3-undone.png", "4-ran-on-mindspore.png",
        "5-toolbar-mode-graph.png", "6-magic-amp-o2.png", "7-diagnostics-panel.png", "8-applied-all-fixes.png",
        "9-migrated.png"]
