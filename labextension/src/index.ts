/**
 * msnb in JupyterLab (issue #17): findings in the editor as you type, quick
 * fixes, the diagnostics panel, mode and AMP in the toolbar and status bar.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';

import * as api from './api';
import { cellMode } from './cellmode';
import { KernelLink } from './kernellink';
import { MsnbLinter } from './lint';
import { migrateNotebook } from './migrate';
import { codeCells, replaceSource } from './notebooks';
import { DiagnosticsPanel } from './panel';
import { Mode } from './protocol';
import { DEFAULT_SETTINGS, IMsnbSettings, readSettings } from './settings';
import { DiagnosticsStore } from './store';
import { ModeToolbarItem, StatusItem } from './toolbar';

const PLUGIN_ID = 'msnb:plugin';

export namespace CommandIDs {
  export const applyAllFixes = 'msnb:apply-all-fixes';
  export const showDiagnostics = 'msnb:show-diagnostics';
  export const migrateNotebook = 'msnb:migrate-notebook';
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'msnb: analyzer findings in the editor, quick fixes, mode and AMP in the toolbar.',
  autoStart: true,
  requires: [INotebookTracker, IEditorExtensionRegistry],
  optional: [ISettingRegistry, ICommandPalette, IStatusBar],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    extensions: IEditorExtensionRegistry,
    settingRegistry: ISettingRegistry | null,
    palette: ICommandPalette | null,
    statusBar: IStatusBar | null
  ) => {
    let settings: IMsnbSettings = DEFAULT_SETTINGS;
    const links = new WeakMap<NotebookPanel, KernelLink>();
    const store = new DiagnosticsStore();
    const reported = new Set<string>();
    const report = (message: string) => {
      if (!reported.has(message)) {
        reported.add(message);
        console.warn(message);
        Notification.warning(message, { autoClose: 5000 });
      }
    };
    const kernelMode = (panel: NotebookPanel): Mode => links.get(panel)?.state?.mode ?? 'pynative';
    const linter = new MsnbLinter({ tracker, store, settings: () => settings, kernelMode, report });
    extensions.addExtension(linter.factory());

    // one kernel link and one toolbar item per notebook
    const status = new StatusItem();
    tracker.widgetAdded.connect((_, panel) => {
      const link = new KernelLink(panel.sessionContext);
      links.set(panel, link);
      let lastMode: Mode | null = null;
      link.stateChanged.connect((_, state) => {
        const mode = state?.mode ?? 'pynative';
        if (mode !== lastMode) {
          lastMode = mode;
          linter.refresh(panel); // findings depend on the mode
        }
      });
      link.errors.connect((_, message) => report(`msnb: ${message}`));
      panel.toolbar.insertAfter('cellType', 'msnb-mode', new ModeToolbarItem(link));
      panel.disposed.connect(() => link.dispose());
      if (tracker.currentWidget === panel) {
        status.follow(link);
      }
    });
    tracker.currentChanged.connect((_, panel) => status.follow(panel ? links.get(panel) ?? null : null));
    if (statusBar) {
      statusBar.registerStatusItem('msnb:status', {
        item: status,
        align: 'left',
        rank: 4,
        isActive: () => !!tracker.currentWidget && tracker.currentWidget === app.shell.currentWidget
      });
    }

    // diagnostics panel
    const panelWidget = new DiagnosticsPanel(tracker, store, linter);
    app.commands.addCommand(CommandIDs.showDiagnostics, {
      label: 'Show msnb diagnostics panel',
      execute: () => {
        if (!panelWidget.isAttached) {
          app.shell.add(panelWidget, 'right', { rank: 900 });
        }
        app.shell.activateById(panelWidget.id);
      }
    });

    app.commands.addCommand(CommandIDs.applyAllFixes, {
      label: 'Apply all msnb fixes',
      caption: 'Replace the active cell with every safe msnb fix applied (Ctrl+Z undoes it)',
      isEnabled: () => tracker.activeCell?.model.type === 'code',
      execute: async () => {
        const panel = tracker.currentWidget;
        const active = tracker.activeCell;
        if (!panel || !active || active.model.type !== 'code') {
          return;
        }
        const cells = codeCells(panel);
        const index = cells.indexOf(active.model);
        const sources = cells.slice(0, index + 1).map(cell => cell.sharedModel.getSource());
        const source = sources[index];
        try {
          const reply = await api.fix({ cells: sources, index, mode: cellMode(source, kernelMode(panel)) });
          if (active.model.sharedModel.getSource() !== source) {
            report('msnb: the cell changed while the fixes were computed; try again');
            return;
          }
          if (!reply.changed) {
            Notification.info('msnb: nothing to fix automatically in this cell', { autoClose: 3000 });
            return;
          }
          replaceSource(panel, active.model, reply.source);
        } catch (error) {
          report(String((error as Error).message ?? error));
        }
      }
    });
    app.commands.addCommand(CommandIDs.migrateNotebook, {
      label: 'Migrate this notebook to msnb',
      caption: 'Write NAME_msnb.ipynb: %load_ext msnb, %%torch_on_ascend cells, safe fixes, a summary (msnb migrate)',
      isEnabled: () => !!tracker.currentWidget,
      execute: () => (tracker.currentWidget ? migrateNotebook(tracker.currentWidget, app.commands) : null)
    });
    app.contextMenu.addItem({ command: CommandIDs.migrateNotebook, selector: '.jp-Notebook', rank: 21 });
    app.contextMenu.addItem({
      command: CommandIDs.applyAllFixes,
      selector: '.jp-Notebook .jp-CodeCell',
      rank: 20
    });
    if (palette) {
      palette.addItem({ command: CommandIDs.applyAllFixes, category: 'msnb' });
      palette.addItem({ command: CommandIDs.showDiagnostics, category: 'msnb' });
      palette.addItem({ command: CommandIDs.migrateNotebook, category: 'msnb' });
    }

    if (settingRegistry) {
      void settingRegistry.load(PLUGIN_ID).then(loaded => {
        const apply = () => {
          settings = readSettings(loaded.composite as Record<string, unknown>);
          tracker.forEach(panel => linter.refresh(panel));
          if (panelWidget.isVisible) {
            panelWidget.render();
          }
        };
        loaded.changed.connect(apply);
        apply();
      });
    }
  }
};

export default plugin;
