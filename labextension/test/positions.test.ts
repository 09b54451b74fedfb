import { codePointsToUtf16, findingRange, offsetOf } from '../src/positions';

describe('analyzer positions to editor offsets', () => {
  const source = 'import torch\nx = torch.ones(2)\nx = x.cuda()\n';

  it('maps a 1-based line/col range to document offsets', () => {
    const lines = source.split('\n');
    const { from, to } = findingRange(source, { line: 3, col: 5, end_line: 3, end_col: 13 });
    expect(source.slice(from, to)).toBe('x.cuda()');
    expect(offsetOf(lines, 1, 1)).toBe(0);
  });

  it('counts columns in code points, offsets in UTF-16 units', () => {
    const text = 's = "😀"; y = x.cuda()';
    // "y" follows 9 code points (1-based col 10) but 10 UTF-16 units
    expect(codePointsToUtf16(text, 9)).toBe(10);
    const { from, to } = findingRange(text, { line: 1, col: 10, end_line: 1, end_col: 22 });
    expect(text.slice(from, to)).toBe('y = x.cuda()');
  });

  it('clamps positions past the end and never inverts a range', () => {
    const { from, to } = findingRange('x = 1', { line: 9, col: 1, end_line: 1, end_col: 1 });
    expect(from).toBe(5);
    expect(to).toBe(5);
    expect(findingRange('', { line: 1, col: 1, end_line: 1, end_col: 4 })).toEqual({ from: 0, to: 0 });
  });
});
