/**
 * Converting analyzer positions (1-based lines, 1-based columns in Unicode
 * code points, exclusive end) to CodeMirror document offsets (UTF-16 code
 * units from the start of the document).
 */

import { IFinding } from './protocol';

/** UTF-16 length of the first `points` code points of `text` (clamped to its end). */
export function codePointsToUtf16(text: string, points: number): number {
  let units = 0;
  let seen = 0;
  for (const ch of text) {
    if (seen >= points) {
      break;
    }
    units += ch.length;
    seen += 1;
  }
  return units;
}

/** Offset in `source` of (line, col), both 1-based, col in code points; clamped into the text. */
export function offsetOf(lines: readonly string[], line: number, col: number): number {
  if (lines.length === 0) {
    return 0;
  }
  const row = Math.min(Math.max(line, 1), lines.length) - 1;
  let offset = 0;
  for (let i = 0; i < row; i++) {
    offset += lines[i].length + 1;
  }
  if (line > lines.length) {
    return offset + lines[row].length;
  }
  return offset + codePointsToUtf16(lines[row], Math.max(col - 1, 0));
}

/** Document range [from, to) of a finding in `source`; never inverted. */
export function findingRange(
  source: string,
  finding: Pick<IFinding, 'line' | 'col' | 'end_line' | 'end_col'>
): { from: number; to: number } {
  const lines = source.split('\n');
  const from = offsetOf(lines, finding.line, finding.col);
  const to = offsetOf(lines, finding.end_line, finding.end_col);
  return { from, to: Math.max(from, to) };
}
