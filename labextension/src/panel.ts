/**
 * The msnb diagnostics panel: every finding of the current notebook in one
 * sortable table; clicking a row jumps to the finding in its cell.
 */

import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { codeCells, isPythonNotebook } from './notebooks';
import { codePointsToUtf16 } from './positions';
import { IRow, SortKey, countBySeverity, sortRows } from './rows';
import { DiagnosticsStore } from './store';
import { MsnbLinter } from './lint';

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'position', label: 'Cell:line:col' },
  { key: 'severity', label: 'Severity' },
  { key: 'rule', label: 'Rule' },
  { key: 'message', label: 'Message' }
];

export class DiagnosticsPanel extends Widget {
  constructor(
    private readonly tracker: INotebookTracker,
    private readonly store: DiagnosticsStore,
    private readonly linter: MsnbLinter
  ) {
    super();
    this.id = 'msnb-diagnostics';
    this.title.label = 'msnb diagnostics';
    this.title.caption = 'msnb: findings of the current notebook';
    this.title.closable = true;
    this.addClass('jp-msnb-DiagnosticsPanel');
    const header = this.node.appendChild(document.createElement('div'));
    header.className = 'jp-msnb-panel-header';
    this._summary = header.appendChild(document.createElement('span'));
    this._summary.className = 'jp-msnb-panel-summary';
    const button = header.appendChild(document.createElement('button'));
    button.className = 'jp-msnb-analyze-all jp-mod-styled';
    button.textContent = 'Analyze all cells';
    button.onclick = () => void this.analyzeAll();
    this._table = this.node.appendChild(document.createElement('table'));
    this._table.className = 'jp-msnb-table';
    store.changed.connect(this._onStoreChanged, this);
    tracker.currentChanged.connect(() => this._onCurrentChanged(), this);
  }

  /** Run the analyzer over every code cell of the current notebook. */
  async analyzeAll(): Promise<void> {
    const panel = this.tracker.currentWidget;
    if (!panel || !isPythonNotebook(panel)) {
      return;
    }
    const cells = codeCells(panel);
    const sources = cells.map(cell => cell.sharedModel.getSource());
    this._summary.textContent = `analyzing ${cells.length} cells...`;
    for (let i = 0; i < cells.length; i++) {
      try {
        const { findings } = await this.linter.analyze({
          panel,
          model: cells[i],
          codeIndex: i,
          sources: sources.slice(0, i + 1)
        });
        this.store.set(panel.id, cells[i].id, findings);
      } catch (error) {
        this._summary.textContent = String((error as Error).message ?? error);
        return;
      }
    }
    this.store.retain(panel.id, new Set(cells.map(cell => cell.id)));
    this.render();
  }

  /** Rows of the current notebook, in the chosen order. */
  rows(panel: NotebookPanel): IRow[] {
    const byCell = this.store.cells(panel.id);
    const cells = panel.content.model?.cells;
    const rows: IRow[] = [];
    if (!cells) {
      return rows;
    }
    for (let i = 0; i < cells.length; i++) {
      const cell = cells.get(i);
      for (const finding of byCell.get(cell.id) ?? []) {
        rows.push({ cell: i, cellId: cell.id, finding });
      }
    }
    return sortRows(rows, this._sortKey, this._descending);
  }

  render(): void {
    const panel = this.tracker.currentWidget;
    this._table.replaceChildren();
    if (!panel) {
      this._summary.textContent = 'no notebook open';
      return;
    }
    const rows = this.rows(panel);
    const counts = countBySeverity(rows);
    this._summary.textContent =
      `${panel.title.label}: ${rows.length} finding${rows.length === 1 ? '' : 's'} ` +
      `(${counts.error} error, ${counts.warning} warning, ${counts.info} info)`;
    const head = this._table.createTHead().insertRow();
    for (const column of COLUMNS) {
      const th = head.appendChild(document.createElement('th'));
      const arrow = column.key === this._sortKey ? (this._descending ? ' ▼' : ' ▲') : '';
      th.textContent = column.label + arrow;
      th.dataset.sort = column.key;
      th.onclick = () => {
        this._descending = column.key === this._sortKey ? !this._descending : false;
        this._sortKey = column.key;
        this.render();
      };
    }
    const body = this._table.createTBody();
    for (const row of rows) {
      const tr = body.insertRow();
      tr.className = `jp-msnb-row jp-msnb-severity-${row.finding.severity}`;
      tr.title = row.finding.why;
      const values = [
        `[${row.cell + 1}] ${row.finding.line}:${row.finding.col}`,
        row.finding.severity,
        row.finding.rule,
        row.finding.message
      ];
      values.forEach(text => (tr.insertCell().textContent = text));
      tr.onclick = () => this.jump(panel, row);
    }
  }

  /** Activate the finding's cell and put the cursor on the finding. */
  jump(panel: NotebookPanel, row: IRow): void {
    const notebook = panel.content;
    const index = notebook.widgets.findIndex(cell => cell.model.id === row.cellId);
    if (index < 0) {
      return;
    }
    notebook.activeCellIndex = index;
    notebook.mode = 'edit';
    const cell = notebook.widgets[index];
    void notebook.scrollToItem(index).then(() => {
      const editor = cell.editor;
      if (!editor) {
        return;
      }
      // the analyzer counts code points; the editor counts UTF-16 units
      const text = cell.model.sharedModel.getSource().split('\n')[row.finding.line - 1] ?? '';
      editor.setCursorPosition({ line: row.finding.line - 1, column: codePointsToUtf16(text, row.finding.col - 1) });
      editor.focus();
    });
  }

  private _onStoreChanged(_: DiagnosticsStore, notebook: string): void {
    if (this.tracker.currentWidget?.id === notebook && this.isVisible) {
      this.render();
    }
  }

  protected onAfterShow(): void {
    this._onCurrentChanged();
  }

  /** Show the current notebook; analyze it all when nothing is known of it yet. */
  private _onCurrentChanged(): void {
    this.render();
    const panel = this.tracker.currentWidget;
    if (this.isVisible && panel && this.store.cells(panel.id).size === 0) {
      void panel.context.ready.then(() => this.analyzeAll());
    }
  }

  private _summary: HTMLSpanElement;
  private _table: HTMLTableElement;
  private _sortKey: SortKey = 'position';
  private _descending = false;
}
