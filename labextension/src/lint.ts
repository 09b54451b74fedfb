/**
 * msnb's findings in the cell editor: a CodeMirror 6 linter (underlines,
 * gutter markers by severity, hover with message / why / suggestion and
 * quick-fix buttons), registered in JupyterLab's editor extension registry.
 *
 * The debounce is the user's setting: the linter runs 50 ms after the last
 * keystroke, then waits the rest of the delay and gives up if the text
 * changed meanwhile (so settings apply at once, without rebuilding editors).
 */

import { Diagnostic, forceLinting, lintGutter, linter } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import { EditorExtensionRegistry, IEditorExtensionFactory } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import * as api from './api';
import { cellMode } from './cellmode';
import { ICellTarget, isPythonNotebook, locate, replaceInView, viewOf } from './notebooks';
import { findingRange } from './positions';
import { IFinding, Mode } from './protocol';
import { IMsnbSettings } from './settings';
import { DiagnosticsStore } from './store';
import { canIgnoreOnLine, hasTorchMagic, ignoreInCell, ignoreOnLine, visibleFindings } from './suppression';

const FIRST_DELAY = 50;

export interface ILinterOptions {
  tracker: INotebookTracker;
  store: DiagnosticsStore;
  settings: () => IMsnbSettings;
  /** The kernel's current msnb mode for a notebook. */
  kernelMode: (panel: NotebookPanel) => Mode;
  /** Report a failed request (shown once per message). */
  report: (message: string) => void;
}

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/** The DOM shown when hovering a finding: message, why, suggestion. */
export function renderFinding(finding: IFinding): HTMLElement {
  const root = document.createElement('div');
  root.className = 'jp-msnb-finding';
  const head = root.appendChild(document.createElement('div'));
  head.className = 'jp-msnb-finding-message';
  const code = head.appendChild(document.createElement('strong'));
  code.textContent = `${finding.rule} `;
  head.appendChild(document.createTextNode(finding.message));
  for (const [label, text, cls] of [
    ['Why: ', finding.why, 'jp-msnb-finding-why'],
    ['Instead: ', finding.suggestion, 'jp-msnb-finding-suggestion']
  ]) {
    if (text) {
      const line = root.appendChild(document.createElement('div'));
      line.className = cls;
      line.appendChild(document.createElement('em')).textContent = label;
      line.appendChild(document.createTextNode(text));
    }
  }
  return root;
}

export class MsnbLinter {
  constructor(private readonly options: ILinterOptions) {}

  /** The factory given to JupyterLab's editor extension registry. */
  factory(): IEditorExtensionFactory<undefined> {
    return {
      name: 'msnb:diagnostics',
      factory: ({ model, inline }) =>
        inline
          ? EditorExtensionRegistry.createImmutableExtension([
              linter(view => this.lint(view, model), { delay: FIRST_DELAY }),
              lintGutter()
            ])
          : null
    };
  }

  /** Re-analyze every rendered cell of `panel` (mode or settings changed). */
  refresh(panel: NotebookPanel): void {
    panel.content.widgets.forEach(cell => {
      const view = viewOf(cell);
      if (view && cell.model.type === 'code') {
        forceLinting(view);
      }
    });
  }

  /** Analyze one target; findings after suppressions and settings. */
  async analyze(target: ICellTarget): Promise<{ findings: IFinding[]; mode: Mode }> {
    const settings = this.options.settings();
    const source = target.sources[target.codeIndex];
    const mode = cellMode(source, this.options.kernelMode(target.panel));
    const reply = await api.analyze({ cells: target.sources, index: target.codeIndex, mode });
    return { findings: visibleFindings(source, reply.findings, settings), mode };
  }

  async lint(view: EditorView, model: unknown): Promise<readonly Diagnostic[]> {
    const settings = this.options.settings();
    const doc = view.state.doc;
    const target = locate(this.options.tracker, model);
    if (!target || !isPythonNotebook(target.panel)) {
      return [];
    }
    const { store } = this.options;
    if (!settings.diagnostics) {
      store.set(target.panel.id, target.model.id, []);
      return [];
    }
    await sleep(Math.max(0, settings.debounceMs - FIRST_DELAY));
    if (view.state.doc !== doc) {
      return []; // typed meanwhile: a newer run is scheduled
    }
    target.sources[target.codeIndex] = doc.toString();
    let result: { findings: IFinding[]; mode: Mode };
    try {
      result = await this.analyze(target);
    } catch (error) {
      this.options.report(String((error as Error).message ?? error));
      return [];
    }
    if (view.state.doc !== doc) {
      return [];
    }
    store.set(target.panel.id, target.model.id, result.findings);
    const source = doc.toString();
    return result.findings.map(f => this.diagnostic(target, f, source, result.mode));
  }

  private diagnostic(target: ICellTarget, finding: IFinding, source: string, mode: Mode): Diagnostic {
    const { from, to } = findingRange(source, finding);
    const actions: Diagnostic['actions'] = [];
    const list = actions as NonNullable<Diagnostic['actions']>[number][];
    if (finding.fixable) {
      list.push({ name: 'Fix', apply: view => void this.applyFix(view, target, finding, source, mode) });
    }
    if (canIgnoreOnLine(source, finding.line)) {
      list.push({
        name: `Ignore ${finding.rule} on this line`,
        apply: view => void replaceInView(view, ignoreOnLine(view.state.doc.toString(), finding.line, finding.rule))
      });
    }
    if (hasTorchMagic(source)) {
      list.push({
        name: `Ignore ${finding.rule} in this cell`,
        apply: view => void replaceInView(view, ignoreInCell(view.state.doc.toString(), finding.rule))
      });
    }
    return {
      from,
      to,
      severity: finding.severity,
      source: 'msnb',
      message: `${finding.rule}: ${finding.message}`,
      renderMessage: () => renderFinding(finding),
      actions
    };
  }

  private async applyFix(view: EditorView, target: ICellTarget, f: IFinding, source: string, mode: Mode) {
    const cells = [...target.sources];
    cells[target.codeIndex] = source;
    try {
      const reply = await api.fix({
        cells,
        index: target.codeIndex,
        mode,
        finding: { rule: f.rule, line: f.line, col: f.col }
      });
      if (view.state.doc.toString() !== source) {
        this.options.report('msnb: the cell changed while the fix was computed; try again');
        return;
      }
      replaceInView(view, reply.source);
    } catch (error) {
      this.options.report(String((error as Error).message ?? error));
    }
  }
}
