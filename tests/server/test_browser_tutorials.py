"""Every shipped tutorial opens clean in a real JupyterLab page (issue 19.5).

A user who opens ``notebooks/0*.ipynb`` in JupyterLab must not find it
modified: JupyterLab rewrites ``kernelspec`` and ``language_info`` from the
kernel it connects, renders saved widget views from the notebook's widget
state, and serialises the notebook its own way on save.  So in one browser
session (Debian's Chromium driven by Playwright, as in test_browser_e2e.py)
all nine notebooks are opened with a running python3 kernel, and then:

- no document is dirty once its kernel's spec and info have arrived;
- autosave, set to every second, writes nothing within a few seconds (it only
  saves dirty documents, so a change made on load would show as a write);
- an explicit save leaves every file byte-identical to the committed one;
- 02's ``%msnb panel`` output reads as a summary (settings and last cell),
  not as a ``ControlPanel(children=...)`` repr, where no live widget exists.

To keep it fast the notebooks share one kernel (the first notebook's): the
metadata JupyterLab writes comes from that kernel's spec and info reply, the
same for each.  JupyterLab is started with ``expose_app_in_browser`` so the
page's own document API reports ``dirty`` rather than a CSS class.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))
CHROMIUM = os.environ.get("MSNB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 240_000
AUTOSAVE_WINDOW_S = 4

OPEN_ALL = """async (paths) => {
  const app = window.jupyterapp;
  const first = await app.commands.execute('docmanager:open', {path: paths[0], factory: 'Notebook'});
  await first.context.ready;
  await first.sessionContext.ready;
  const kernel = first.sessionContext.session.kernel;
  const rest = await Promise.all(paths.slice(1).map(path => app.commands.execute(
      'docmanager:open', {path, factory: 'Notebook', kernel: {id: kernel.id, name: kernel.name}})));
  const panels = [first, ...rest];
  const out = [];
  for (const w of panels) {
    await w.context.ready;
    await w.sessionContext.ready;
    const k = w.sessionContext.session.kernel;
    await k.info;
    const spec = await k.spec;
    out.push({path: w.context.path, kernel: spec.display_name});
  }
  await new Promise(r => setTimeout(r, 1000));  // the notebooks' own spec/info handlers run first
  panels.forEach((w, i) => { out[i].dirty = w.context.model.dirty; });
  return out;
}"""

PANEL_OUTPUT = """async (path) => {
  const w = window.jupyterapp.shell.widgets('main').find(w => w.context && w.context.path === path);
  window.jupyterapp.shell.activateById(w.id);
  const cell = w.content.widgets.find(c => c.model.sharedModel.getSource().startsWith('%msnb panel'));
  await w.content.scrollToCell(cell);
  for (let i = 0; i < 600 && !cell.outputArea.node.innerText.trim(); i++) await new Promise(r => setTimeout(r, 100));
  return cell.outputArea.node.innerText;
}"""

SAVE_ALL = """async () => {
  const out = [];
  for (const w of window.jupyterapp.shell.widgets('main')) {
    if (!w.context) continue;
    await w.context.save();
    out.push([w.context.path, w.context.model.dirty]);
  }
  return out;
}"""


def _configure_lab(base: Path) -> None:
    """No news popup; autosave every second."""
    config = base / "config"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}), encoding="utf-8")
    docmanager = config / "lab" / "user-settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True, exist_ok=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(
        json.dumps({"autosave": True, "autosaveInterval": 1}), encoding="utf-8")


def test_every_tutorial_opens_and_saves_unmodified(tmp_path, start_jupyter):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: run `make test` (it runs .ci/install-browser.sh) first")
    from playwright.sync_api import sync_playwright

    names = [p.name for p in NOTEBOOKS]
    assert len(names) == 9, names
    committed = {p.name: p.read_bytes() for p in NOTEBOOKS}
    _configure_lab(tmp_path)
    start = time.monotonic()
    with start_jupyter(tmp_path, app="lab", extra=("--LabApp.expose_app_in_browser=True",)) as lab, \
            sync_playwright() as pw:
        for p in NOTEBOOKS:
            shutil.copy(p, lab.root / p.name)
        mtimes = {n: (lab.root / n).stat().st_mtime_ns for n in names}
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        try:
            page.goto(f"{lab.url}/lab?token={lab.token}&reset")
            page.wait_for_function("!!window.jupyterapp && !document.querySelector('#jupyterlab-splash')")
            page.evaluate("() => window.jupyterapp.restored")
            opened = page.evaluate(OPEN_ALL, names)
            assert [o["path"] for o in opened] == names
            assert {o["kernel"] for o in opened} == {"Python 3 (ipykernel)"}
            assert [o["path"] for o in opened if o["dirty"]] == []

            # JupyterLab's autosave (every second here) only writes dirty documents
            time.sleep(AUTOSAVE_WINDOW_S)
            assert [n for n in names if (lab.root / n).stat().st_mtime_ns != mtimes[n]] == []

            panel = page.evaluate(PANEL_OUTPUT, "02_graph_mode_and_amp.ipynb")
            assert "msnb panel: mode=" in panel and "last cell" in panel, panel
            assert "ControlPanel(" not in panel and "Error displaying widget" not in panel, panel

            saved = page.evaluate(SAVE_ALL)
            assert sorted(saved) == [[n, False] for n in names]
            changed = [n for n in names if (lab.root / n).read_bytes() != committed[n]]
            assert changed == [], "JupyterLab rewrote these on save; run tools/execute_notebooks.py --clean-only"
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"))
            print(lab.log.read_text()[-4000:])
            raise
        finally:
            browser.close()
    print(f"9 notebooks opened, checked and saved in {time.monotonic() - start:.1f} s")
