/**
 * Rows of the diagnostics panel and their ordering: one row per finding of
 * the notebook, sortable by any column, ties broken by notebook position so
 * the order is stable.
 */

import { IFinding, Severity } from './protocol';

export interface IRow {
  /** 0-based index of the cell in the notebook. */
  cell: number;
  /** The cell's model id, to jump to it even after cells moved. */
  cellId: string;
  finding: IFinding;
}

export type SortKey = 'position' | 'severity' | 'rule' | 'message';

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

function byPosition(a: IRow, b: IRow): number {
  return a.cell - b.cell || a.finding.line - b.finding.line || a.finding.col - b.finding.col;
}

const COMPARE: Record<SortKey, (a: IRow, b: IRow) => number> = {
  position: () => 0,
  severity: (a, b) => SEVERITY_RANK[a.finding.severity] - SEVERITY_RANK[b.finding.severity],
  rule: (a, b) => a.finding.rule.localeCompare(b.finding.rule),
  message: (a, b) => a.finding.message.localeCompare(b.finding.message)
};

/** A sorted copy of `rows`; `descending` reverses the key, never the position tie-break. */
export function sortRows(rows: readonly IRow[], key: SortKey, descending = false): IRow[] {
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const primary = key === 'position' ? byPosition(a, b) : COMPARE[key](a, b);
    return sign * primary || byPosition(a, b);
  });
}

/** Count of rows per severity, for the panel's summary line. */
export function countBySeverity(rows: readonly IRow[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  rows.forEach(row => (counts[row.finding.severity] += 1));
  return counts;
}
