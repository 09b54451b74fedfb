import { cellMode } from '../src/cellmode';
import { IFinding } from '../src/protocol';
import { IRow, countBySeverity, sortRows } from '../src/rows';
import { DEFAULT_SETTINGS, readSettings } from '../src/settings';
import { migrationSummary, statusText } from '../src/status';

describe('cellMode', () => {
  it("prefers the cell's own --mode flag", () => {
    expect(cellMode('%%torch_on_ascend --mode graph\nx', 'pynative')).toBe('graph');
    expect(cellMode('%%torch_on_ascend --mode=pynative\nx', 'graph')).toBe('pynative');
  });
  it("falls back to the kernel's mode", () => {
    expect(cellMode('%%torch_on_ascend --amp O1\nx', 'graph')).toBe('graph');
    expect(cellMode('%%torch_on_ascend --mode eager\nx', 'graph')).toBe('graph');
    expect(cellMode('x = 1  # --mode graph', 'pynative')).toBe('pynative');
  });
});

function row(cell: number, line: number, rule: string, severity: IFinding['severity'], message = rule): IRow {
  const finding: IFinding = {
    rule,
    category: 'c',
    severity,
    line,
    col: 1,
    end_line: line,
    end_col: 2,
    message,
    why: '',
    suggestion: '',
    mode: 'pynative',
    fixable: false
  };
  return { cell, cellId: `c${cell}`, finding };
}

describe('sortRows', () => {
  const rows = [row(2, 1, 'MSN101', 'info'), row(0, 3, 'MSN301', 'error'), row(0, 1, 'MSN201', 'warning')];

  it('orders by notebook position by default', () => {
    expect(sortRows(rows, 'position').map(r => r.finding.rule)).toEqual(['MSN201', 'MSN301', 'MSN101']);
  });
  it('sorts by severity, rule, message, both directions', () => {
    expect(sortRows(rows, 'severity').map(r => r.finding.severity)).toEqual(['error', 'warning', 'info']);
    expect(sortRows(rows, 'severity', true).map(r => r.finding.severity)).toEqual(['info', 'warning', 'error']);
    expect(sortRows(rows, 'rule', true).map(r => r.finding.rule)).toEqual(['MSN301', 'MSN201', 'MSN101']);
  });
  it('breaks ties by position and does not mutate its input', () => {
    const tied = [row(3, 1, 'MSN101', 'info'), row(1, 1, 'MSN101', 'info')];
    expect(sortRows(tied, 'rule').map(r => r.cell)).toEqual([1, 3]);
    expect(tied[0].cell).toBe(3);
  });
  it('counts by severity', () => {
    expect(countBySeverity(rows)).toEqual({ error: 1, warning: 1, info: 1 });
  });
});

describe('readSettings', () => {
  it('fills defaults and drops invalid entries', () => {
    expect(readSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(
      readSettings({ diagnostics: false, ignoredRules: ['MSN101', 3], debounceMs: -1, severities: ['error', 'loud'] })
    ).toEqual({ diagnostics: false, ignoredRules: ['MSN101'], debounceMs: 500, severities: ['error'] });
  });
});

describe('statusText', () => {
  it('shows the bound device once known, else the requested one', () => {
    expect(statusText(null)).toBe('msnb: not loaded');
    const state = { mode: 'graph' as const, amp: 'O1' as const, device: 'auto', target: null, analyze: true };
    expect(statusText(state)).toBe('msnb: auto · graph · AMP O1');
    expect(statusText({ ...state, target: 'CPU' })).toBe('msnb: CPU · graph · AMP O1');
  });
});

describe('migrationSummary', () => {
  it('counts changed cells, fixes and what needs a human', () => {
    const reply = { source: 'a.ipynb', output: 'a_msnb.ipynb', fixed: { MSN101: 2, MSN201: 1 }, needs_human: ['x'] };
    expect(migrationSummary({ ...reply, changed_cells: 3 })).toBe(
      'msnb: wrote a_msnb.ipynb: 3 cells changed, 3 fixes applied, 1 item needs a human'
    );
    expect(migrationSummary({ ...reply, changed_cells: 1, fixed: {}, needs_human: [] })).toBe(
      'msnb: wrote a_msnb.ipynb: 1 cell changed, 0 fixes applied, 0 items need a human'
    );
  });
});
