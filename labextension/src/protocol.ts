/**
 * Shapes exchanged with msnb's server extension (POST /msnb/analyze, /msnb/fix)
 * and with the kernel comm (target "msnb"). Kept free of JupyterLab imports so
 * the pure logic that uses them is unit-tested with jest.
 */

export type Severity = 'error' | 'warning' | 'info';

export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

export const MODES = ['pynative', 'graph'] as const;
export type Mode = (typeof MODES)[number];

export const AMP_LEVELS = ['O0', 'O1', 'O2', 'O3'] as const;
export type AmpLevel = (typeof AMP_LEVELS)[number];

/** One analyzer finding, as `msnb.server` serialises `msnb.analyzer.Finding`. */
export interface IFinding {
  rule: string;
  category: string;
  severity: Severity;
  /** 1-based line of the cell source. */
  line: number;
  /** 1-based column counted in Unicode code points. */
  col: number;
  end_line: number;
  /** Exclusive, 1-based, in code points. */
  end_col: number;
  message: string;
  why: string;
  suggestion: string;
  mode: Mode;
  /** Whether POST /msnb/fix can rewrite this finding. */
  fixable: boolean;
}

export interface IAnalyzeRequest {
  /** Sources of the notebook's code cells up to and including the analyzed one. */
  cells: string[];
  /** Index in `cells` of the analyzed cell; earlier cells are context. */
  index: number;
  mode: Mode;
}

export interface IAnalyzeReply {
  findings: IFinding[];
}

export interface IFixRequest extends IAnalyzeRequest {
  /** Fix only this finding; all safe fixes when absent. */
  finding?: { rule: string; line: number; col: number };
}

export interface IFixReply {
  source: string;
  changed: boolean;
}

/** The kernel's msnb state, sent by `msnb.frontend_comm`. */
export interface IKernelState {
  mode: Mode;
  amp: AmpLevel;
  /** Requested device: auto | cpu | ascend. */
  device: string;
  /** Device MindSpore is bound to ("CPU", "Ascend"), null before the first cell. */
  target: string | null;
  analyze: boolean;
}

export interface IMigrateRequest {
  /** The notebook's path relative to the server's root folder. */
  path: string;
  style?: 'cell' | 'session';
  /** Replace an existing `x_msnb.ipynb`. */
  overwrite?: boolean;
}

/** What `msnb.migration.migrate_notebook` did (POST /msnb/migrate). */
export interface IMigrateReply {
  source: string;
  output: string;
  changed_cells: number;
  fixed: Record<string, number>;
  needs_human: string[];
}
