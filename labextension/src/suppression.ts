/**
 * msnb's suppression syntax, read and written as the analyzer and the
 * `%%torch_on_ascend` magic define it (issue #14):
 *
 *   x = x.cuda()  # msnb: ignore[MSN101]          one line, codes comma-separated
 *   x = x.cuda()  # msnb: ignore                  one line, every code
 *   %%torch_on_ascend --ignore MSN101,MSN301      the whole cell
 *
 * Writing goes through `ignoreOnLine` / `ignoreInCell`; `visibleFindings`
 * drops findings a suppression or the user's settings hide, so the editor
 * agrees with the analyzer even before a server round trip.
 */

import { IFinding, Severity } from './protocol';

const LINE_COMMENT = /#\s*msnb:\s*ignore(?:\[([^\]]*)\])?/i;
const CELL_MAGIC = /^%%torch_on_ascend\b/;
const IGNORE_FLAG = /(\s--ignore(?:=|\s+))([A-Za-z0-9_]+(?:\s*,\s*[A-Za-z0-9_]+)*)/;

function splitCodes(list: string): string[] {
  return list
    .split(',')
    .map(code => code.trim())
    .filter(code => code.length > 0);
}

/** Whether the cell starts with a `%%torch_on_ascend` line (only then can a cell-wide ignore be written). */
export function hasTorchMagic(source: string): boolean {
  return CELL_MAGIC.test(source);
}

/** Codes ignored on each 1-based line ('all' for a bare `# msnb: ignore`), and for the whole cell. */
export function suppressions(source: string): { cell: Set<string>; lines: Map<number, Set<string> | 'all'> } {
  const lines = source.split('\n');
  const byLine = new Map<number, Set<string> | 'all'>();
  lines.forEach((text, i) => {
    const match = LINE_COMMENT.exec(text);
    if (match) {
      byLine.set(i + 1, match[1] === undefined ? 'all' : new Set(splitCodes(match[1]).map(c => c.toUpperCase())));
    }
  });
  const cell = new Set<string>();
  if (hasTorchMagic(source)) {
    const flag = IGNORE_FLAG.exec(lines[0]);
    if (flag) {
      splitCodes(flag[2]).forEach(code => cell.add(code));
    }
  }
  return { cell, lines: byLine };
}

/** Whether a comment can be appended to a line (not a line continuation). */
export function canIgnoreOnLine(source: string, line: number): boolean {
  const text = source.split('\n')[line - 1];
  return text !== undefined && !text.trimEnd().endsWith('\\') && !CELL_MAGIC.test(text);
}

/** `source` with `code` ignored on 1-based `line` (extends an existing `# msnb: ignore[...]`). */
export function ignoreOnLine(source: string, line: number, code: string): string {
  const lines = source.split('\n');
  const text = lines[line - 1];
  if (text === undefined) {
    return source;
  }
  const match = LINE_COMMENT.exec(text);
  if (match && match[1] === undefined) {
    return source; // a bare `# msnb: ignore` already ignores every code
  }
  if (match && match[1] !== undefined) {
    const codes = splitCodes(match[1]);
    if (codes.includes(code)) {
      return source;
    }
    const start = match.index + match[0].length - 1 - match[1].length;
    lines[line - 1] = text.slice(0, start) + [...codes, code].join(',') + text.slice(start + match[1].length);
  } else {
    lines[line - 1] = `${text.trimEnd()}  # msnb: ignore[${code}]`;
  }
  return lines.join('\n');
}

/** `source` with `code` ignored for the cell via `--ignore` on its `%%torch_on_ascend` line; unchanged without one. */
export function ignoreInCell(source: string, code: string): string {
  if (!hasTorchMagic(source)) {
    return source;
  }
  const newline = source.indexOf('\n');
  const first = newline < 0 ? source : source.slice(0, newline);
  const rest = newline < 0 ? '' : source.slice(newline);
  const flag = IGNORE_FLAG.exec(first);
  let updated: string;
  if (flag) {
    const codes = splitCodes(flag[2]);
    if (codes.includes(code)) {
      return source;
    }
    const at = flag.index + flag[1].length;
    updated = first.slice(0, at) + [...codes, code].join(',') + first.slice(at + flag[2].length);
  } else {
    updated = `${first.trimEnd()} --ignore ${code}`;
  }
  return updated + rest;
}

export interface IVisibility {
  /** Rule codes the user never wants to see (setting `ignoredRules`). */
  ignoredRules: readonly string[];
  /** Severities shown (setting `severities`). */
  severities: readonly Severity[];
}

/** Findings that are neither suppressed in `source` nor hidden by the user's settings. */
export function visibleFindings(source: string, findings: readonly IFinding[], options: IVisibility): IFinding[] {
  const { cell, lines } = suppressions(source);
  const ignored = new Set(options.ignoredRules.map(code => code.trim().toUpperCase()));
  const shown = new Set(options.severities);
  return findings.filter(
    f =>
      shown.has(f.severity) &&
      !ignored.has(f.rule.toUpperCase()) &&
      !cell.has(f.rule) &&
      !isIgnoredOnLine(lines.get(f.line), f.rule)
  );
}

function isIgnoredOnLine(codes: Set<string> | 'all' | undefined, rule: string): boolean {
  return codes === 'all' || (codes?.has(rule.toUpperCase()) ?? false);
}
