/**
 * Finding a cell's notebook, and the sources sent to the analyzer: the
 * notebook's code cells up to the analyzed one (earlier cells are context).
 */

import { Cell, ICellModel } from '@jupyterlab/cells';
import { CodeMirrorEditor } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { EditorView } from '@codemirror/view';

import { applyEdit, minimalEdit } from './textedit';

export interface ICellTarget {
  panel: NotebookPanel;
  model: ICellModel;
  /** Index among the notebook's code cells (the analyzer's `index`). */
  codeIndex: number;
  /** Sources of the code cells 0..codeIndex. */
  sources: string[];
}

/** Code cell models of a notebook, in order. */
export function codeCells(panel: NotebookPanel): ICellModel[] {
  const cells = panel.content.model?.cells;
  const out: ICellModel[] = [];
  if (!cells) {
    return out;
  }
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type === 'code') {
      out.push(cell);
    }
  }
  return out;
}

/** Whether the notebook's kernel runs Python (msnb analyzes nothing else). */
export function isPythonNotebook(panel: NotebookPanel): boolean {
  const info = panel.content.model?.getMetadata('language_info') as { name?: string } | undefined;
  const spec = panel.content.model?.getMetadata('kernelspec') as { language?: string } | undefined;
  const language = info?.name ?? spec?.language ?? 'python';
  return language.toLowerCase() === 'python';
}

/** The notebook holding `model` and the analyzer request's cells, or null (not a notebook cell). */
export function locate(tracker: INotebookTracker, model: unknown): ICellTarget | null {
  let found: ICellTarget | null = null;
  tracker.forEach(panel => {
    if (found) {
      return;
    }
    const cells = codeCells(panel);
    const index = cells.findIndex(cell => cell === model);
    if (index >= 0) {
      found = {
        panel,
        model: cells[index],
        codeIndex: index,
        sources: cells.slice(0, index + 1).map(cell => cell.sharedModel.getSource())
      };
    }
  });
  return found;
}

/** The CodeMirror view of a cell, when its editor is rendered. */
export function viewOf(cell: Cell | undefined): EditorView | null {
  const editor = cell?.editor;
  return editor instanceof CodeMirrorEditor ? editor.editor : null;
}

/** The widget of a cell model in its notebook. */
export function cellWidget(panel: NotebookPanel, model: ICellModel): Cell | undefined {
  return panel.content.widgets.find(cell => cell.model === model);
}

/**
 * Replace a cell's text by `next` with the smallest edit, through the editor
 * when it is rendered (one undo step for Ctrl+Z), else through the shared model.
 */
export function replaceSource(panel: NotebookPanel, model: ICellModel, next: string): boolean {
  const view = viewOf(cellWidget(panel, model));
  if (view) {
    return replaceInView(view, next);
  }
  const old = model.sharedModel.getSource();
  const edit = minimalEdit(old, next);
  if (!edit) {
    return false;
  }
  model.sharedModel.updateSource(edit.from, edit.to, edit.insert);
  return applyEdit(old, edit) === next;
}

/** Replace the document of `view` by `next` with the smallest edit. */
export function replaceInView(view: EditorView, next: string): boolean {
  const edit = minimalEdit(view.state.doc.toString(), next);
  if (!edit) {
    return false;
  }
  view.dispatch({ changes: edit, userEvent: 'input.msnb' });
  return true;
}
