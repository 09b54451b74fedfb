/**
 * Findings of every notebook, per cell, as the editor linter and the
 * diagnostics panel computed them last. The panel renders from here.
 */

import { ISignal, Signal } from '@lumino/signaling';

import { IFinding } from './protocol';

export class DiagnosticsStore {
  /** Emits the notebook key (its path or id) whose findings changed. */
  get changed(): ISignal<this, string> {
    return this._changed;
  }

  /** Replace the findings of one cell; an empty list removes the cell. */
  set(notebook: string, cellId: string, findings: readonly IFinding[]): void {
    let cells = this._byNotebook.get(notebook);
    if (!cells) {
      cells = new Map();
      this._byNotebook.set(notebook, cells);
    }
    const before = cells.get(cellId);
    if (findings.length === 0) {
      cells.delete(cellId);
    } else {
      cells.set(cellId, [...findings]);
    }
    if (JSON.stringify(before ?? []) !== JSON.stringify(findings)) {
      this._changed.emit(notebook);
    }
  }

  /** cellId -> findings of one notebook. */
  cells(notebook: string): ReadonlyMap<string, readonly IFinding[]> {
    return this._byNotebook.get(notebook) ?? new Map();
  }

  /** Forget cells that are no longer in the notebook. */
  retain(notebook: string, cellIds: ReadonlySet<string>): void {
    const cells = this._byNotebook.get(notebook);
    if (!cells) {
      return;
    }
    let removed = false;
    for (const id of [...cells.keys()]) {
      if (!cellIds.has(id)) {
        cells.delete(id);
        removed = true;
      }
    }
    if (removed) {
      this._changed.emit(notebook);
    }
  }

  private _byNotebook = new Map<string, Map<string, IFinding[]>>();
  private _changed = new Signal<this, string>(this);
}
