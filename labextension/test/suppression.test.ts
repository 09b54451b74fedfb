import { IFinding } from '../src/protocol';
import {
  canIgnoreOnLine,
  hasTorchMagic,
  ignoreInCell,
  ignoreOnLine,
  suppressions,
  visibleFindings
} from '../src/suppression';

function finding(rule: string, line: number, severity: IFinding['severity'] = 'warning'): IFinding {
  return {
    rule,
    category: 'cuda',
    severity,
    line,
    col: 1,
    end_line: line,
    end_col: 2,
    message: 'm',
    why: 'w',
    suggestion: 's',
    mode: 'pynative',
    fixable: false
  };
}

describe('line suppressions', () => {
  it('appends the comment in the analyzer format', () => {
    expect(ignoreOnLine('x = 1\ny = x.cuda()\n', 2, 'MSN101')).toBe('x = 1\ny = x.cuda()  # msnb: ignore[MSN101]\n');
  });

  it('extends an existing comment, once per code', () => {
    const once = ignoreOnLine('y = x.cuda()  # msnb: ignore[MSN101]', 1, 'MSN301');
    expect(once).toBe('y = x.cuda()  # msnb: ignore[MSN101,MSN301]');
    expect(ignoreOnLine(once, 1, 'MSN301')).toBe(once);
  });

  it('is not offered on continuation lines or the magic line', () => {
    expect(canIgnoreOnLine('y = x + \\\n  1', 1)).toBe(false);
    expect(canIgnoreOnLine('%%torch_on_ascend\nx', 1)).toBe(false);
    expect(canIgnoreOnLine('%%torch_on_ascend\nx', 2)).toBe(true);
    expect(canIgnoreOnLine('x', 5)).toBe(false);
  });
});

describe('cell suppressions', () => {
  it('adds --ignore to the %%torch_on_ascend line', () => {
    expect(ignoreInCell('%%torch_on_ascend --mode graph\nx.cuda()', 'MSN101')).toBe(
      '%%torch_on_ascend --mode graph --ignore MSN101\nx.cuda()'
    );
    expect(ignoreInCell('%%torch_on_ascend --ignore MSN101\nx', 'MSN301')).toBe(
      '%%torch_on_ascend --ignore MSN101,MSN301\nx'
    );
    expect(ignoreInCell('%%torch_on_ascend --ignore MSN101 --amp O1\nx', 'MSN101')).toBe(
      '%%torch_on_ascend --ignore MSN101 --amp O1\nx'
    );
  });

  it('leaves cells without the magic alone', () => {
    expect(hasTorchMagic('x.cuda()')).toBe(false);
    expect(ignoreInCell('x.cuda()', 'MSN101')).toBe('x.cuda()');
  });

  it('reads a bare comment as every code, any case', () => {
    const { lines } = suppressions('a  # msnb: ignore\nb  # MSNB: Ignore[msn101]');
    expect(lines.get(1)).toBe('all');
    expect([...((lines.get(2) as Set<string>) ?? [])]).toEqual(['MSN101']);
    expect(ignoreOnLine('a  # msnb: ignore', 1, 'MSN101')).toBe('a  # msnb: ignore');
    const shown = visibleFindings('a  # msnb: ignore\nb', [finding('MSN101', 1), finding('MSN201', 2)], {
      ignoredRules: [],
      severities: ['warning']
    });
    expect(shown.map(f => f.rule)).toEqual(['MSN201']);
  });

  it('reads both kinds back', () => {
    const { cell, lines } = suppressions('%%torch_on_ascend --ignore=MSN201, MSN301\nx  # msnb: ignore[MSN101]');
    expect([...cell]).toEqual(['MSN201', 'MSN301']);
    expect([...((lines.get(2) as Set<string>) ?? [])]).toEqual(['MSN101']);
  });
});

describe('visibleFindings', () => {
  const source = '%%torch_on_ascend --ignore MSN201\na\nb  # msnb: ignore[MSN101]\nc';
  const all = [finding('MSN201', 2), finding('MSN101', 3), finding('MSN101', 4), finding('MSN301', 4, 'info')];

  it('drops suppressed findings', () => {
    const shown = visibleFindings(source, all, { ignoredRules: [], severities: ['error', 'warning', 'info'] });
    expect(shown.map(f => `${f.rule}@${f.line}`)).toEqual(['MSN101@4', 'MSN301@4']);
  });

  it('applies the ignored-rules and severities settings', () => {
    expect(visibleFindings(source, all, { ignoredRules: ['msn301'], severities: ['warning', 'info'] })).toHaveLength(1);
    expect(visibleFindings(source, all, { ignoredRules: [], severities: ['error'] })).toHaveLength(0);
  });
});
